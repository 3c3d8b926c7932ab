import pg from 'pg';
import { loadConfig } from '../server/config';
import { nearestRank } from './quantile';

/**
 * The PostgreSQL ceilings `npm run bench` compares Paydesk's PostgreSQL scenarios against, run as
 * a plain node process with the server's pool (DATABASE_POOL_SIZE, 10 by default; synchronous_commit on) and 50
 * concurrent callers for the given seconds:
 *   insert — one INSERT of a session-shaped row per READ COMMITTED transaction (BEGIN, INSERT,
 *            COMMIT: the isolation level and round trips of the server's session create);
 *   read   — a primary-key SELECT of such a row through the pool.
 * The row is shaped like the server's: a table made `LIKE checkout_sessions` (its columns,
 * defaults, checks and indexes) in the bench database, filled from a copy of a real session
 * with its unique columns made fresh per row. Prints one JSON line
 * `{ scenario, engine, requests, rps, p50_ms, p99_ms, errors }` and exits.
 *
 * Usage: tsx bench/ceiling-pg.ts insert|read DATABASE_URL SECONDS
 */
const [mode, url, secondsArg] = process.argv.slice(2);
if ((mode !== 'insert' && mode !== 'read') || !url) {
  process.stderr.write('usage: ceiling-pg.ts insert|read DATABASE_URL SECONDS\n');
  process.exit(2);
}
const seconds = Number(secondsArg ?? 6);
const CALLERS = 50;
// The servers' pool size, read as their config reads it: the bench's instances inherit the same environment.
const POOL = loadConfig({ DATABASE_POOL_SIZE: process.env.DATABASE_POOL_SIZE }).databasePoolSize;

const pool = new pg.Pool({ connectionString: url, max: POOL, options: '-c synchronous_commit=on' });
pool.on('error', () => undefined);

interface Shape {
  columns: string[];
  sample: unknown[];
  /** Indexes (into columns) of text columns in a unique index: made fresh per row. */
  fresh: number[];
}

/** The session-shaped table (made once per database) and a sample row to copy. */
async function shape(): Promise<Shape> {
  await pool.query('CREATE TABLE IF NOT EXISTS ceiling_sessions (LIKE checkout_sessions INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING INDEXES)');
  const sample = await pool.query('SELECT * FROM checkout_sessions ORDER BY created_at DESC LIMIT 1');
  const row = sample.rows[0] as Record<string, unknown> | undefined;
  if (!row) throw new Error('no checkout session to copy: run session_create first');
  const unique = await pool.query<{ column: string }>(
    `SELECT DISTINCT a.attname AS column
       FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
      WHERE i.indrelid = 'ceiling_sessions'::regclass AND i.indisunique`,
  );
  const columns = sample.fields.map((f) => f.name);
  const uniqueCols = new Set(unique.rows.map((r) => r.column));
  const fresh = columns.flatMap((c, i) => (uniqueCols.has(c) && typeof row[c] === 'string' ? [i] : []));
  return { columns, sample: columns.map((c) => row[c]), fresh };
}

const latencies: number[] = [];
let errors = 0;

async function callers(work: (n: number) => Promise<void>): Promise<{ requests: number; elapsed: number }> {
  let n = 0;
  const until = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CALLERS }, async () => {
      while (performance.now() < until) {
        const t0 = performance.now();
        try {
          await work(++n);
          latencies.push(performance.now() - t0);
        } catch {
          errors++;
        }
      }
    }),
  );
  return { requests: latencies.length, elapsed: (performance.now() - started) / 1000 };
}

const runId = `${process.pid.toString(36)}${Date.now().toString(36)}`;
const s = await shape();
const placeholders = s.columns.map((_, i) => `$${i + 1}`).join(', ');
const insertSql = `INSERT INTO ceiling_sessions (${s.columns.map((c) => `"${c}"`).join(', ')}) VALUES (${placeholders})`;
const valuesFor = (n: number) => s.sample.map((v, i) => (s.fresh.includes(i) ? `${String(v).slice(0, 12)}_c${runId}_${n}` : v));

async function insertOne(n: number): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('START TRANSACTION ISOLATION LEVEL READ COMMITTED');
    await client.query(insertSql, valuesFor(n));
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

let result: { requests: number; elapsed: number };
if (mode === 'insert') {
  result = await callers(insertOne);
} else {
  // Rows to read, then primary-key SELECTs spread over them.
  const ids: string[] = [];
  const idCol = s.columns.indexOf('id');
  for (let i = 0; i < 200; i++) {
    const v = valuesFor(1_000_000 + i);
    await pool.query(insertSql, v);
    ids.push(String(v[idCol]));
  }
  result = await callers(async (n) => {
    const r = await pool.query('SELECT * FROM ceiling_sessions WHERE id = $1', [ids[n % ids.length]]);
    if (r.rowCount !== 1) throw new Error('row not found');
  });
}
await pool.end();

latencies.sort((a, b) => a - b);
const pct = (q: number) => Math.round(nearestRank(latencies, q));
process.stdout.write(
  `${JSON.stringify({
    scenario: mode === 'insert' ? 'ceiling_pg_insert' : 'ceiling_pg_read',
    engine: 'postgres',
    requests: result.requests,
    rps: Math.round((result.requests / result.elapsed) * 10) / 10,
    p50_ms: pct(0.5),
    p99_ms: pct(0.99),
    errors,
  })}\n`,
);
