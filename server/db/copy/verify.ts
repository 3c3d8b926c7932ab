import { createHash } from 'node:crypto';
import type Pg from 'pg';
import { CopyRefused, PROGRESS_TABLE, planCopy, quoteIdent, readSourceCatalog, readTargetCatalog, type CopyPlan, type CopyTable } from './catalog';
import { sourceSchemaRefusal, takeSnapshot, type Snapshot } from './snapshot';
import { connectTarget, tableExists, targetMigrations, targetSchemaRefusal } from './target';
import { canonicalSource, canonicalTarget, targetSelect } from './values';

/**
 * `db:copy --verify`: the desk's database (a new snapshot of it) against the target, table by
 * table, changing neither: the row count and a checksum of every row of each side. A row's
 * checksum is the SHA-256 of its values in canonical text (values.ts), and a table's is the sum
 * of its rows' modulo 2^256, so the two sides are read in whatever order each returns, streamed
 * (the target through a cursor), and a row that differs, is missing or is there twice changes it.
 */

export interface TableCheck {
  table: string;
  source_rows: number;
  target_rows: number;
  source_checksum: string;
  target_checksum: string;
  equal: boolean;
}

export interface VerifyReport {
  source: string;
  snapshot_at: string;
  equal: boolean;
  tables: TableCheck[];
  skipped: CopyPlan['skipped'];
  differences: string[];
}

const MOD = 1n << 256n;
const FETCH = 2_000;

const rowHash = (values: Array<string | null>): bigint => BigInt(`0x${createHash('sha256').update(JSON.stringify(values)).digest('hex')}`);
const hex = (sum: bigint): string => sum.toString(16).padStart(64, '0');

export async function verifyCopy(opts: { sourceFile: string; targetUrl: string; progress(c: TableCheck): void }): Promise<VerifyReport> {
  const snapshot = await takeSnapshot(opts.sourceFile);
  let client: Pg.Client | undefined;
  try {
    const refusal = sourceSchemaRefusal(snapshot.db);
    if (refusal) throw new CopyRefused(refusal);
    client = await connectTarget(opts.targetUrl);
    const targetRefusal = targetSchemaRefusal(await targetMigrations(client), 'verify');
    if (targetRefusal) throw new CopyRefused(targetRefusal);
    const differences: string[] = [];
    if (await tableExists(client, PROGRESS_TABLE)) differences.push('the target holds an interrupted copy: finish it with --resume');
    const plan = planCopy(readSourceCatalog(snapshot.db), await readTargetCatalog(client));
    const tables: TableCheck[] = [];
    // One moment of the target for every table.
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    try {
      for (const table of plan.tables) {
        const source = sourceSum(snapshot, table);
        const target = await targetSum(client, table);
        const check: TableCheck = {
          table: table.name,
          source_rows: source.rows,
          target_rows: target.rows,
          source_checksum: hex(source.sum),
          target_checksum: hex(target.sum),
          equal: source.rows === target.rows && source.sum === target.sum,
        };
        if (!check.equal) {
          differences.push(
            source.rows !== target.rows ? `${table.name}: ${source.rows} rows in the desk's database, ${target.rows} in the target` : `${table.name}: the same ${source.rows} rows in number, but their values differ`,
          );
        }
        tables.push(check);
        opts.progress(check);
      }
    } finally {
      await client.query('COMMIT').catch(() => undefined);
    }
    return { source: snapshot.file, snapshot_at: snapshot.takenAt, equal: differences.length === 0, tables, skipped: plan.skipped, differences };
  } finally {
    await client?.end().catch(() => undefined);
    snapshot.close();
  }
}

function sourceSum(snapshot: Snapshot, table: CopyTable): { rows: number; sum: bigint } {
  const cols = table.columns;
  const read = snapshot.db
    .prepare(`SELECT ${cols.map((c) => (c.source === 'rowid' ? 'rowid' : quoteIdent(c.source))).join(', ')} FROM ${quoteIdent(table.name)}`)
    .raw(true)
    .safeIntegers(true);
  let rows = 0;
  let sum = 0n;
  for (const row of read.iterate() as IterableIterator<Array<string | bigint | number | Buffer | null>>) {
    sum = (sum + rowHash(row.map((v, i) => canonicalSource(cols[i]!.kind, v)))) % MOD;
    rows++;
  }
  return { rows, sum };
}

async function targetSum(client: Pg.Client, table: CopyTable): Promise<{ rows: number; sum: bigint }> {
  const cols = table.columns;
  await client.query(`DECLARE copy_verify NO SCROLL CURSOR FOR SELECT ${cols.map((c) => targetSelect(c.kind, quoteIdent(c.name))).join(', ')} FROM ${quoteIdent(table.name)}`);
  let rows = 0;
  let sum = 0n;
  try {
    for (;;) {
      const batch = await client.query<Array<string | null>>({ text: `FETCH ${FETCH} FROM copy_verify`, rowMode: 'array' });
      for (const row of batch.rows) {
        sum = (sum + rowHash(row.map((v, i) => canonicalTarget(cols[i]!.kind, v)))) % MOD;
        rows++;
      }
      if (batch.rows.length < FETCH) break;
    }
  } finally {
    await client.query('CLOSE copy_verify');
  }
  return { rows, sum };
}
