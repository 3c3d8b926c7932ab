import type Pg from 'pg';
import { CopyRefused, PROGRESS_TABLE, planCopy, quoteIdent, readSourceCatalog, readTargetCatalog, type CopyPlan, type CopyTable } from './catalog';
import { takeSnapshot, sourceSchemaRefusal, type Snapshot } from './snapshot';
import { connectTarget, firstHeldTable, migrateTarget, seedRowCounts, tableExists, targetMigrations, targetSchemaRefusal } from './target';
import { toTarget } from './values';

/**
 * `db:copy`: every table of a desk's SQLite database into an empty PostgreSQL database at the
 * same schema version, in dependency order, in batches of one transaction each.
 *
 * Resuming: the first transaction creates `db_copy_progress` in the target (the source's file and
 * row counts) and clears the rows a fresh migration seeded (the target's own banks and branches:
 * the desk's come with its data); each table's last batch marks it copied in the same
 * transaction, and the last transaction of the copy sets the sequences and drops the progress
 * table. So a target with that table is an interrupted copy, and `--resume` skips the tables
 * marked copied and inserts the others' rows with ON CONFLICT DO NOTHING: the batches that had
 * committed are not written twice (a table without a unique key is emptied and copied again). The desk must not have changed in between (its row counts
 * are compared): the copy is of one moment of it.
 *
 * The target's triggers stay armed: the copy only inserts, which the audit trail's guards allow
 * (its prune marks are checked to be a year old by the target's clock, as every genuine one is).
 */

export interface TableProgress {
  table: string;
  rows: number;
  total: number;
  seconds: number;
  rows_per_s: number;
  state: 'copying' | 'copied' | 'already copied';
}

export interface CopyReport {
  source: string;
  snapshot_at: string;
  resumed: boolean;
  migrated: string[];
  tables: TableProgress[];
  skipped: CopyPlan['skipped'];
  target_only: string[];
  sequences: Array<{ table: string; column: string; next: string }>;
  duration_ms: number;
}

export interface CopyOptions {
  sourceFile: string;
  targetUrl: string;
  resume: boolean;
  batchSize: number;
  progress(p: TableProgress): void;
}

export { CopyRefused };

const PROGRESS_EVERY_MS = 5_000;

export async function copyDesk(opts: CopyOptions): Promise<CopyReport> {
  const started = Date.now();
  const snapshot = await takeSnapshot(opts.sourceFile);
  let client: Pg.Client | undefined;
  try {
    const refusal = sourceSchemaRefusal(snapshot.db);
    if (refusal) throw new CopyRefused(refusal);
    client = await connectTarget(opts.targetUrl);
    const targetRefusal = targetSchemaRefusal(await targetMigrations(client), 'copy');
    if (targetRefusal) throw new CopyRefused(targetRefusal);

    const seeds = await seedRowCounts();
    const interrupted = await tableExists(client, PROGRESS_TABLE);
    if (interrupted && !opts.resume) {
      throw new CopyRefused(`the target holds an interrupted copy (${await progressSource(client)}): run again with --resume to finish it, or copy into a new, empty database`);
    }
    if (!interrupted) {
      const held = await firstHeldTable(client, seeds);
      if (held) {
        throw new CopyRefused(
          `the target already holds Paydesk rows (${held.table}: ${held.rows}): db:copy only fills an empty database, so two desks are never merged into one; create a new database for this copy`,
        );
      }
    }
    const migrated = await migrateTarget(opts.targetUrl);
    const plan = planCopy(readSourceCatalog(snapshot.db), await readTargetCatalog(client));
    const counts = sourceCounts(snapshot, plan);
    const done = interrupted ? await resumePoint(client, snapshot, counts) : await beginCopy(client, snapshot, plan, counts, seeds);

    const tables: TableProgress[] = [];
    for (const table of plan.tables) {
      const total = counts[table.name] ?? 0;
      if (done.has(table.name)) {
        const p: TableProgress = { table: table.name, rows: total, total, seconds: 0, rows_per_s: 0, state: 'already copied' };
        tables.push(p);
        opts.progress(p);
        continue;
      }
      const p = await copyTable(client, snapshot, table, total, interrupted, opts);
      tables.push(p);
      opts.progress(p);
    }
    const sequences = await finish(client, plan);
    return {
      source: snapshot.file,
      snapshot_at: snapshot.takenAt,
      resumed: interrupted,
      migrated,
      tables,
      skipped: plan.skipped,
      target_only: plan.targetOnly,
      sequences,
      duration_ms: Date.now() - started,
    };
  } finally {
    await client?.end().catch(() => undefined);
    snapshot.close();
  }
}

function sourceCounts(snapshot: Snapshot, plan: CopyPlan): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const t of plan.tables) counts[t.name] = snapshot.db.prepare(`SELECT count(*) FROM ${quoteIdent(t.name)}`).pluck().get() as number;
  return counts;
}

async function progressSource(client: Pg.Client): Promise<string> {
  const r = await client.query<{ value: string }>(`SELECT value FROM ${PROGRESS_TABLE} WHERE item = 'source'`);
  return `from ${r.rows[0]?.value ?? 'an unknown source'}`;
}

/** The first transaction of a copy: the progress table, and the target's seeded rows cleared. */
async function beginCopy(client: Pg.Client, snapshot: Snapshot, plan: CopyPlan, counts: Record<string, number>, seeds: Map<string, number>): Promise<Set<string>> {
  await client.query('BEGIN');
  try {
    await client.query(`CREATE TABLE ${PROGRESS_TABLE} (item text PRIMARY KEY, value text NOT NULL)`);
    await client.query(`INSERT INTO ${PROGRESS_TABLE} (item, value) VALUES ('source', $1), ('counts', $2), ('snapshot_at', $3)`, [snapshot.file, JSON.stringify(counts), snapshot.takenAt]);
    // Children first: a seeded branch goes before its bank.
    for (const t of [...plan.tables].reverse()) {
      if (seeds.has(t.name)) await client.query(`DELETE FROM ${quoteIdent(t.name)}`);
    }
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
  return new Set();
}

/** An interrupted copy of this same source and state: the tables it finished. */
async function resumePoint(client: Pg.Client, snapshot: Snapshot, counts: Record<string, number>): Promise<Set<string>> {
  const rows = await client.query<{ item: string; value: string }>(`SELECT item, value FROM ${PROGRESS_TABLE}`);
  const item = new Map(rows.rows.map((r) => [r.item, r.value]));
  if (item.get('source') !== snapshot.file) {
    throw new CopyRefused(`the interrupted copy in the target came from ${item.get('source') ?? 'another source'}, not ${snapshot.file}: resume it from that file, or copy into a new, empty database`);
  }
  const before = JSON.parse(item.get('counts') ?? '{}') as Record<string, number>;
  const changed = Object.keys({ ...before, ...counts }).filter((t) => before[t] !== counts[t]);
  if (changed.length > 0) {
    const t = changed[0]!;
    throw new CopyRefused(
      `the desk's database changed since the interrupted copy (${t}: ${before[t] ?? 0} rows then, ${counts[t] ?? 0} now): stop the desk and copy into a new, empty database`,
    );
  }
  return new Set(rows.rows.filter((r) => r.item.startsWith('table:')).map((r) => r.item.slice('table:'.length)));
}

async function copyTable(client: Pg.Client, snapshot: Snapshot, table: CopyTable, total: number, resuming: boolean, opts: CopyOptions): Promise<TableProgress> {
  const started = performance.now();
  const cols = table.columns;
  const perBatch = Math.max(1, Math.min(opts.batchSize, Math.floor(60_000 / Math.max(1, cols.length))));
  const read = snapshot.db
    .prepare(`SELECT ${cols.map((c) => (c.source === 'rowid' ? 'rowid' : quoteIdent(c.source))).join(', ')} FROM ${quoteIdent(table.name)} ORDER BY ${table.sourceOrder}`)
    .raw(true)
    .safeIntegers(true);
  const head = `INSERT INTO ${quoteIdent(table.name)} (${cols.map((c) => quoteIdent(c.name)).join(', ')})${table.sequences.length > 0 ? ' OVERRIDING SYSTEM VALUE' : ''} VALUES `;
  const tail = resuming && table.keyed ? ' ON CONFLICT DO NOTHING' : '';
  // A table with no unique key cannot skip the rows an interrupted run wrote: they go first
  // (every row of it in the target came from this copy).
  if (resuming && !table.keyed) await client.query(`DELETE FROM ${quoteIdent(table.name)}`);
  let rows = 0;
  let lastReport = Date.now();
  const progress = (state: TableProgress['state']): TableProgress => {
    const seconds = (performance.now() - started) / 1000;
    return { table: table.name, rows, total, seconds: Math.round(seconds * 1000) / 1000, rows_per_s: seconds > 0 ? Math.round(rows / seconds) : rows, state };
  };
  const flush = async (batch: unknown[][], last: boolean) => {
    const params: unknown[] = [];
    const tuples = batch.map((row) => `(${row.map((v, i) => (params.push(toTarget(cols[i]!.kind, v as never)), `$${params.length}`)).join(', ')})`);
    await client.query('BEGIN');
    try {
      if (tuples.length > 0) await client.query(head + tuples.join(', ') + tail, params);
      if (last) await client.query(`INSERT INTO ${PROGRESS_TABLE} (item, value) VALUES ($1, $2)`, [`table:${table.name}`, new Date().toISOString()]);
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw new Error(`copying ${table.name} (after ${rows} of ${total} rows): ${(err as Error).message}`, { cause: err });
    }
    rows += batch.length;
  };
  let batch: unknown[][] = [];
  for (const row of read.iterate() as IterableIterator<unknown[]>) {
    batch.push(row);
    if (batch.length < perBatch) continue;
    // The batch that ends the table is the one that marks it copied: wait to know whether it is.
    const full = batch;
    batch = [];
    await flush(full, false);
    if (Date.now() - lastReport >= PROGRESS_EVERY_MS) {
      lastReport = Date.now();
      opts.progress(progress('copying'));
    }
  }
  await flush(batch, true);
  return progress('copied');
}

/** The last transaction: every identity and serial sequence past the copied rows, the progress table gone. */
async function finish(client: Pg.Client, plan: CopyPlan): Promise<CopyReport['sequences']> {
  const out: CopyReport['sequences'] = [];
  await client.query('BEGIN');
  try {
    // This commit says the copy is complete: it waits for the disk (the batches did not).
    await client.query('SET LOCAL synchronous_commit = on');
    for (const t of plan.tables) {
      for (const column of t.sequences) {
        const r = await client.query<{ next: string }>(
          `SELECT setval(pg_get_serial_sequence($1, $2), COALESCE(max(${quoteIdent(column)}), 0) + 1, false)::text AS next FROM ${quoteIdent(t.name)}`,
          [quoteIdent(t.name), column],
        );
        out.push({ table: t.name, column, next: r.rows[0]!.next });
      }
    }
    await client.query(`DROP TABLE ${PROGRESS_TABLE}`);
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
  // Fresh planner statistics for every table, so the first queries of the central server are planned on them.
  await client.query('ANALYZE');
  return out;
}
