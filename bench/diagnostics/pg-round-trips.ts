import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { loadConfig } from '../../server/config';
import { connectDatabase, migrate } from '../../server/db/database';
import { startServer } from '../../server/runtime';
import { startTestServer, withDatabase } from '../../test/support/postgres-cluster';
import { runAdmin } from '../../test/support/processes';

/**
 * Load-independent figures for the PostgreSQL run (docs/performance.md): one in-process server on
 * a fresh database, every statement its pool sends counted (each pg `query` is one round trip)
 * and grouped by its first words, plus pg_stat_database's commits and rollbacks (a rollback is a
 * serialization-failure retry or a refused write) and how often a request waited for a pooled
 * connection. `npx tsx bench/diagnostics/pg-round-trips.ts` prints one JSON line per scenario. The machine's
 * load changes the timings only, never these counts.
 */

const counts = new Map<string, number>();
let statements = 0;
const originalQuery = pg.Client.prototype.query;
pg.Client.prototype.query = function counted(this: pg.Client, ...args: unknown[]) {
  const first = args[0] as string | { text?: string };
  const text = typeof first === 'string' ? first : (first?.text ?? '');
  const label = text.replace(/\s+/g, ' ').trim().slice(0, 70);
  statements++;
  counts.set(label, (counts.get(label) ?? 0) + 1);
  return (originalQuery as (...a: unknown[]) => unknown).apply(this, args);
} as typeof pg.Client.prototype.query;

let poolWaits = 0;
const originalConnect = pg.Pool.prototype.connect;
pg.Pool.prototype.connect = function counted(this: pg.Pool, ...args: unknown[]) {
  if (this.idleCount === 0 && this.totalCount >= (this.options.max ?? 10)) poolWaits++;
  return (originalConnect as (...a: unknown[]) => unknown).apply(this, args);
} as typeof pg.Pool.prototype.connect;

async function main(): Promise<void> {
  const server = await startTestServer(process.env.PAYDESK_BENCH_DATABASE_URL);
  const name = `paydesk_rt_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: server.url });
  // Another user of a shared server may terminate backends: that must not crash the run.
  admin.on('error', () => undefined);
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = withDatabase(server.url, name);
  const dir = mkdtempSync(join(tmpdir(), 'paydesk-rt-'));
  try {
    const opened = connectDatabase({ databaseUrl: url, databaseFile: '' });
    await migrate(opened.db);
    await opened.close();
    const env = { DATABASE_URL: url };
    const created = await runAdmin<{ api_key: string }>(dir, ['integration:create', '--merchant', 'Round trips'], env);
    Object.assign(process.env, { DATABASE_URL: url, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dir, LOG_LEVEL: 'warn', RATE_LIMIT_PER_MIN: '0' });
    const running = await startServer(loadConfig(), { logger: false });
    const auth = { authorization: `Bearer ${created.api_key}` };
    const stats = async () => {
      // Other backends' counters reach pg_stat_database when they go idle (at most ~1 s later).
      await new Promise((r) => setTimeout(r, 1500));
      await admin.query('select pg_stat_clear_snapshot()');
      const r = await admin.query<{ c: string; r: string }>('select xact_commit as c, xact_rollback as r from pg_stat_database where datname = $1', [name]);
      return { commits: Number(r.rows[0]?.c), rollbacks: Number(r.rows[0]?.r) };
    };
    let n = 0;
    const create = async () => {
      n++;
      const res = await fetch(`${running.url}/api/v1/sessions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...auth, 'idempotency-key': `rt-${n}` },
        body: JSON.stringify({ amount_minor: 1000, invoice_ref: `INV-RT-${n}`, description: 'Round trips' }),
      });
      const body = (await res.json()) as { id: string };
      if (res.status !== 201) throw new Error(`create answered ${res.status}: ${JSON.stringify(body)}`);
      return body.id;
    };
    const firstId = await create(); // warm-up: key cache, prepared plans
    const get = async () => {
      const res = await fetch(`${running.url}/api/v1/sessions/${firstId}`, { headers: auth });
      await res.text();
      if (res.status !== 200) throw new Error(`get answered ${res.status}`);
    };
    const measure = async (scenario: string, requests: number, concurrency: number, one: () => Promise<unknown>) => {
      const before = await stats();
      counts.clear();
      statements = 0;
      poolWaits = 0;
      const t0 = performance.now();
      let left = requests;
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (left-- > 0) await one();
        }),
      );
      const ms = performance.now() - t0;
      const taken = { statements, poolWaits, top: [...counts.entries()].sort((a, b) => b[1] - a[1]).slice(0, 12) };
      const after = await stats();
      const per = (x: number) => Math.round((x / requests) * 100) / 100;
      process.stdout.write(
        `${JSON.stringify({
          scenario,
          requests,
          concurrency,
          statements_per_request: per(taken.statements),
          commits_per_request: per(after.commits - before.commits),
          rollbacks_per_request: per(after.rollbacks - before.rollbacks),
          pool_waits_per_request: per(taken.poolWaits),
          ms_per_request: Math.round((ms / requests) * 10) / 10,
          statements: Object.fromEntries(taken.top.map(([k, v]) => [k, per(v)])),
        })}\n`,
      );
    };
    const requests = Number(process.env.RT_REQUESTS ?? 200);
    await measure('session_create', requests, 1, create);
    await measure('session_get', requests, 1, get);
    await measure('session_create', requests, 20, create);
    await measure('session_get', requests, 20, get);
    await running.stop();
  } catch (err) {
    process.stderr.write(`failed: ${(err as Error).stack ?? String(err)}\n`);
    throw err;
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
    await admin.end();
    await server.stop();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);
