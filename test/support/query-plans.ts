import { CompiledQuery, sql, type KyselyPlugin, type PluginTransformQueryArgs, type PluginTransformResultArgs, type QueryResult, type RootOperationNode, type UnknownRow } from 'kysely';
import type pg from 'pg';
import type { Db } from '../../server/db/database';
import { createTestApp, type TestContext } from './app';
import { onPostgres } from './database';

/**
 * The query-plan checks (test/integration/query-plans*.test.ts): the SQL an app runs is recorded,
 * then each recorded read, update or delete is explained (`EXPLAIN QUERY PLAN` on SQLite, `EXPLAIN`
 * with seq scans disabled on PostgreSQL, where empty tables would otherwise always get one), and a
 * full scan of a table that grows with traffic is a failure naming the query. A search must also
 * not walk every session of the merchant (an index range on `merchant_id` alone, each row then
 * tested against the search: how "contains" read a million sessions), nor scan the trigram index (0016).
 */
const GROWING = new Set([
  'checkout_sessions',
  'payment_attempts',
  'cash_slips',
  'cash_deposits',
  'events',
  'webhook_deliveries',
  'webhook_delivery_attempts',
  'audit_log',
  'session_history',
  'idempotency_keys',
  'invoice_lines',
  'invoice_summaries',
  'invoice_summary_deltas',
]);

/** Labels whose queries must find their sessions through what they search for, not the merchant. */
const SEARCHES = new Set(['sessions search', 'sessions amount']);

/**
 * Labels of lists whose every order comes from an index: a page is read in index order and
 * stops at the limit, where a sort step reads and sorts every row of the merchant first.
 */
const INDEX_ORDERED = new Set(['invoices list']);

export interface RecordedQuery {
  sql: string;
  parameters: readonly unknown[];
  label: string;
}

/**
 * Records the statements an app runs while `label` is set, once per label and text. On either
 * engine a Kysely plugin sees every statement Kysely builds (`wrapDb`); a statement of
 * server/db/precompiled.ts is built once per process, so it shows there only at its first build
 * (with placeholders for values: SQLite explains it so, PostgreSQL refuses them). On PostgreSQL
 * `watch(pool)` also records what the app's pool sends, the hot prepared texts with the values of
 * the call: what production runs, whenever it was compiled.
 */
export class SqlRecorder implements KyselyPlugin {
  readonly seen = new Map<string, RecordedQuery>();
  label: string | null = null;
  constructor(private readonly compile: (node: RootOperationNode, queryId: PluginTransformQueryArgs['queryId']) => CompiledQuery) {}
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    if (this.label !== null) {
      const c = this.compile(args.node, args.queryId);
      // A statement of server/db/precompiled.ts compiled for the first time under a label carries its
      // placeholders (NUL-prefixed strings) as parameters: SQLite explains it so, PostgreSQL refuses the NUL.
      const placeholders = c.parameters.some((v) => typeof v === 'string' && v.startsWith('\u0000'));
      if (/^\s*(with|select|update|delete)\b/i.test(c.sql) && !(placeholders && onPostgres)) this.keep(this.label, c.sql, c.parameters);
    }
    return args.node;
  }
  /** A statement the server runs without compiling it on this handle (server/db/precompiled.ts), as it runs it. */
  add(label: string, c: CompiledQuery): void {
    this.seen.set(`${label}\n${c.sql}`, { sql: c.sql, parameters: c.parameters, label });
  }
  /**
   * PostgreSQL: every statement the pool's connections are given from now on, with its values,
   * inserts too (an `INSERT … SELECT` reads): the texts precompiled.ts runs as prepared
   * statements, which Kysely's plugins never see again once compiled.
   */
  watch(pool: pg.Pool): void {
    const wrapped = new WeakSet<object>();
    pool.on('acquire', (client) => {
      if (wrapped.has(client)) return;
      wrapped.add(client);
      const query = client.query.bind(client) as (...args: unknown[]) => unknown;
      client.query = ((...args: unknown[]) => {
        const [text, values] = args;
        if (this.label !== null && typeof text === 'string' && /^\s*(with|select|update|delete|insert)\b/i.test(text)) {
          this.keep(this.label, text, Array.isArray(values) ? values : []);
        }
        return query(...args);
      }) as typeof client.query;
    });
  }
  /** Per label: a statement a search runs is held to the search's rules even when a list ran it first. */
  private keep(label: string, text: string, parameters: readonly unknown[]): void {
    const key = `${label}\n${text}`;
    if (!this.seen.has(key)) this.seen.set(key, { sql: text, parameters, label });
  }
  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}

/** A test app whose SQL `recorder` records (on PostgreSQL, what its pool sends as well). */
export async function recordedApp(opts: Parameters<typeof createTestApp>[0] = {}): Promise<{ t: TestContext; recorder: SqlRecorder }> {
  let recorder!: SqlRecorder;
  const t = await createTestApp({
    ...opts,
    wrapDb: (db) => {
      recorder ??= new SqlRecorder((node, queryId) => db.getExecutor().compileQuery(node, queryId));
      return db.withPlugin(recorder);
    },
  });
  if (t.database.pool) recorder.watch(t.database.pool);
  return { t, recorder };
}

/** On PostgreSQL: index scans of checkout_sessions whose only condition is the merchant (every session of it). */
function merchantWalksPg(plan: string): string[] {
  const lines = plan.split('\n');
  const out: string[] = [];
  lines.forEach((line, i) => {
    const scan = /(?:Index Scan|Index Only Scan|Bitmap Index Scan)(?: Backward)? (?:using|on) (checkout_sessions_\w+)/.exec(line);
    const cond = /Index Cond: \((?:\w+\.)?merchant_id = [^()]*\)$/.exec(lines[i + 1]?.trim() ?? '');
    if (scan && cond) out.push(`checkout_sessions (every session of the merchant, ${scan[1]})`);
  });
  return out;
}

/** alias → table, for the growing tables a query names (`FROM checkout_sessions s`, `"payment_attempts" as "a"`). */
function aliases(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const t of GROWING) {
    out.set(t, t);
    for (const m of text.matchAll(new RegExp(`"?\\b${t}\\b"?\\s+(?:as\\s+)?"?(\\w+)"?`, 'gi'))) out.set(m[1]!, t);
  }
  return out;
}

/** The growing tables a PostgreSQL plan reads whole (`Seq Scan on t`). */
export const seqScansPg = (plan: string): string[] => [...plan.matchAll(/Seq Scan on (\w+)/g)].map((m) => m[1]!).filter((t) => GROWING.has(t));

/** The full scans of growing tables in a plan: `SCAN t` without an index (SQLite) or `Seq Scan on t` (PostgreSQL). */
async function fullScans(db: Db, q: RecordedQuery): Promise<{ plan: string; scans: string[] }> {
  const search = SEARCHES.has(q.label);
  if (onPostgres) {
    return db.connection().execute(async (conn) => {
      await sql`set enable_seqscan = off`.execute(conn);
      try {
        const r = await conn.executeQuery<{ 'QUERY PLAN': string }>(CompiledQuery.raw(`EXPLAIN ${q.sql}`, [...q.parameters]));
        const plan = r.rows.map((row) => row['QUERY PLAN']).join('\n');
        const scans = seqScansPg(plan);
        return { plan, scans: search ? [...scans, ...merchantWalksPg(plan)] : scans };
      } finally {
        await sql`set enable_seqscan = on`.execute(conn);
      }
    });
  }
  const r = await db.executeQuery<{ detail: string }>(CompiledQuery.raw(`EXPLAIN QUERY PLAN ${q.sql}`, [...q.parameters]));
  const names = aliases(q.sql);
  const plan = r.rows.map((row) => row.detail).join('\n');
  // A walk down the rowid (`ORDER BY seq DESC LIMIT n`, no sort step) reads only the page: SQLite
  // prints it as a bare SCAN, so it is told apart by the ORDER BY on the integer primary key.
  const rowidWalk = (alias: string) => new RegExp(`order by "${alias}"\\."seq"( desc)? limit`, 'i').test(q.sql) && !/TEMP B-TREE FOR ORDER BY/.test(plan);
  const scans = r.rows
    .map((row) => /^SCAN (\w+)(.*)$/.exec(row.detail))
    // Walking a whole index and then sorting every row (`USE TEMP B-TREE FOR ORDER BY`) reads the table too.
    .filter((m): m is RegExpExecArray => m !== null && (!/USING (COVERING )?INDEX|USING INTEGER PRIMARY KEY/.test(m[2]!) || /TEMP B-TREE FOR ORDER BY/.test(plan)) && !rowidWalk(m[1]!))
    .map((m) => names.get(m[1]!))
    .filter((t): t is string => t !== undefined);
  // The trigram index read whole (no MATCH, `M`, nor rowid, `=`, in its plan) is a scan of every session's text: any of its
  // range tables (0025: `checkout_sessions_search`, `checkout_sessions_search_<n>`), by name or alias.
  const fts = new Set([...q.sql.matchAll(/\bcheckout_sessions_search(?:_\d+)?\b(?:\s+(?:as\s+)?(\w+))?/gi)].flatMap((m) => [m[0].split(/\s/)[0]!, ...(m[1] ? [m[1]] : [])]));
  for (const row of r.rows) {
    const m = /^SCAN (\w+) VIRTUAL TABLE INDEX \d+:(?![^\s]*[M=])/.exec(row.detail);
    if (m && fts.has(m[1]!)) scans.push(`checkout_sessions_search (${m[1]})`);
  }
  if (search) {
    for (const row of r.rows) {
      const m = /^SEARCH (\w+) USING (?:COVERING )?INDEX (\w+) \(merchant_id=\?\)$/.exec(row.detail);
      if (m && names.get(m[1]!) === 'checkout_sessions') scans.push(`checkout_sessions (every session of the merchant, ${m[2]})`);
    }
  }
  return { plan, scans };
}

/** A sort step in a plan: SQLite's temporary B-tree for ORDER BY, PostgreSQL's Sort node. */
const sorts = (plan: string) => (onPostgres ? /(?:^|->\s+)(?:Incremental )?Sort\s+\(/m.test(plan) : /TEMP B-TREE FOR ORDER BY/.test(plan));

/** Each recorded statement explained: one message per statement with a full scan or an unindexed sort (its label, SQL and plan). */
export async function explainFailures(db: Db, recorder: SqlRecorder): Promise<string[]> {
  const failures: string[] = [];
  for (const q of recorder.seen.values()) {
    const { plan, scans } = await fullScans(db, q);
    if (scans.length > 0) failures.push(`[${q.label}] full scan of ${[...new Set(scans)].join(', ')}\n  ${q.sql}\n  plan:\n    ${plan.replaceAll('\n', '\n    ')}`);
    else if (INDEX_ORDERED.has(q.label) && sorts(plan)) failures.push(`[${q.label}] sorts instead of reading an index in order\n  ${q.sql}\n  plan:\n    ${plan.replaceAll('\n', '\n    ')}`);
  }
  return failures;
}

/**
 * PostgreSQL's plan of `text` with `enable_seqscan = off`: with these values (as an unnamed
 * statement is planned, and a prepared one for its first runs), or `generic`: the one plan a
 * prepared statement keeps for every call once PostgreSQL finds it no dearer (`PREPARE`, then
 * `EXPLAIN EXECUTE` under `plan_cache_mode = force_generic_plan`; the values do not change it).
 */
export async function planPg(db: Db, text: string, values: readonly unknown[] | 'generic'): Promise<string> {
  const lines = (r: { rows: Array<{ 'QUERY PLAN': string }> }) => r.rows.map((row) => row['QUERY PLAN']).join('\n');
  return db.connection().execute(async (conn) => {
    await sql`set enable_seqscan = off`.execute(conn);
    try {
      if (values !== 'generic') return lines(await conn.executeQuery<{ 'QUERY PLAN': string }>(CompiledQuery.raw(`EXPLAIN ${text}`, [...values])));
      await sql`set plan_cache_mode = force_generic_plan`.execute(conn);
      await conn.executeQuery(CompiledQuery.raw(`PREPARE paydesk_plan_check AS ${text}`));
      try {
        const { rows } = await conn.executeQuery<{ n: number }>(CompiledQuery.raw(`SELECT coalesce(array_length(parameter_types, 1), 0) AS n FROM pg_prepared_statements WHERE name = 'paydesk_plan_check'`));
        const args = Array.from({ length: Number(rows[0]!.n) }, () => 'NULL').join(', ');
        return lines(await conn.executeQuery<{ 'QUERY PLAN': string }>(CompiledQuery.raw(`EXPLAIN EXECUTE paydesk_plan_check${args ? `(${args})` : ''}`)));
      } finally {
        await conn.executeQuery(CompiledQuery.raw('DEALLOCATE paydesk_plan_check'));
        await sql`reset plan_cache_mode`.execute(conn);
      }
    } finally {
      await sql`set enable_seqscan = on`.execute(conn);
    }
  });
}

/** Whether a PostgreSQL plan reads `table` through `index` (an index, index-only or bitmap index scan). */
export const usesIndexPg = (plan: string, table: string, index: string): boolean =>
  new RegExp(`(?:Index Scan|Index Only Scan)(?: Backward)? using ${index} on ${table}\\b|Bitmap Index Scan on ${index}\\b`).test(plan);
