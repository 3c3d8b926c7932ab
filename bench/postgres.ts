import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { loadConfig } from '../server/config';
import { connectDatabase, migrate } from '../server/db/database';
import { startTestServer, withDatabase, type TestServer } from '../test/support/postgres-cluster';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { runAdmin, spawnServer, type Child } from '../test/support/processes';
import { cpuWindow, postmasterOf } from './cpu-accounting';
import { load, type LoadOptions, type LoadRequest, type LoadResult } from './http-load';

/**
 * The PostgreSQL run of `npm run bench`: `session_create`, `session_get` (one session, as the
 * SQLite scenario) and `session_get_spread` (the first 1,000 sessions created, in turn) against
 * one instance, then against two instances on the same database with the load split between
 * them, then against one again (`pass: 2`), as JSON lines `{ scenario, engine, instances, requests,
 * rps, p50_ms, p99_ms, errors, commits_per_request, rollbacks_per_request }` (pg_stat_database,
 * load-independent), `statements_per_request` and `pool_waits_per_request` (the instances'
 * /metrics), the CPU per request of the servers, PostgreSQL and the load generator, and the
 * window's `machine_busy` and `steal` (bench/cpu-accounting.ts); then `{ scenario, engine,
 * ratio_2_over_1 }`: two instances over the mean of the one-instance runs before and after them. The server is PAYDESK_BENCH_DATABASE_URL, the
 * machine's PostgreSQL on 127.0.0.1:5432, or a throwaway cluster; in a database of its own,
 * dropped afterwards. Without any of them the run is skipped with a note.
 */

type Line = (obj: object) => void;

/** What one scenario sends, whichever instance a connection is on. */
type Scenario = Pick<LoadOptions, 'request' | 'onResponse'>;

/** The same scenario against every base URL at once, the connections split evenly between them. */
function spread(bases: string[], connections: number, durationS: number, scenario: Scenario): Promise<LoadResult> {
  return load({ targets: bases, connections, durationS, ...scenario });
}

export async function postgresScenarios(line: Line, note: (msg: string) => void, opts: { connections: number; durationS: number; serverNodeArgs?: string[] }): Promise<void> {
  let server: TestServer;
  try {
    server = await startTestServer(process.env.PAYDESK_BENCH_DATABASE_URL);
  } catch (err) {
    note(`PostgreSQL run skipped: ${(err as Error).message}`);
    return;
  }
  const name = `paydesk_bench_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: server.url });
  // Another user of a shared server may terminate backends: that must not crash the run.
  admin.on('error', () => undefined);
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = withDatabase(server.url, name);
  const dirs: string[] = [];
  const children: Child[] = [];
  try {
    const opened = connectDatabase({ databaseUrl: url, databaseFile: '' });
    await migrate(opened.db);
    await opened.close();
    // METRICS=on: the statements and pool waits per request come from each instance's /metrics.
    const env = { DATABASE_URL: url, METRICS: 'on' };
    const dir = () => {
      const d = mkdtempSync(join(tmpdir(), 'paydesk-bench-pg-'));
      dirs.push(d);
      return d;
    };
    const start = async () => {
      const c = await spawnServer(dir(), env, opts.serverNodeArgs ?? []);
      children.push(c);
      return c.url;
    };
    const created = await runAdmin<{ api_key: string }>(dir(), ['integration:create', '--merchant', 'Bench PG Merchant'], env);
    const auth = { authorization: `Bearer ${created.api_key}` };
    const runId = Date.now().toString(36);
    let n = 0;
    let firstId: string | undefined;
    // The first sessions created, for `session_get_spread`: lookups spread over many sessions.
    const ids: string[] = [];
    const SPREAD = 1000;
    const json = { 'content-type': 'application/json', ...auth };
    const create: Scenario = {
      request: () => {
        n++;
        return {
          method: 'POST',
          path: '/api/v1/sessions',
          headers: { ...json, 'idempotency-key': `bench-pg-${runId}-${n}` },
          body: JSON.stringify({ amount_minor: 1000, invoice_ref: `INV-PG-${runId}-${n}`, description: 'Bench water bill' }),
        };
      },
      onResponse: (status, body) => {
        if (status !== 201 || ids.length >= SPREAD) return;
        ids.push((JSON.parse(body) as { id: string }).id);
        firstId ??= ids[0];
      },
    };
    // One request object for every get: the load generator serialises it once.
    let one: LoadRequest | undefined;
    const get: Scenario = { request: () => (one ??= { method: 'GET', path: `/api/v1/sessions/${firstId}`, headers: auth }) };
    let g = 0;
    const getSpread: Scenario = { request: () => ({ method: 'GET', path: `/api/v1/sessions/${ids[g++ % ids.length]}`, headers: auth }) };

    // Each instance is warmed before it is measured (its code optimised, its pool's connections open
    // and their statements prepared), the second as the first: otherwise the first run of each pays
    // its start-up, which the second instance would pay inside the two-instance runs.
    const WARM_S = 2;
    const warm = async (base: string) => {
      await spread([base], opts.connections, WARM_S, create);
      await spread([base], opts.connections, WARM_S, get);
      await spread([base], opts.connections, WARM_S, getSpread);
    };
    const bases = [await start()];
    await warm(bases[0]!);
    const measured = new Map<string, LoadResult>();
    // Server-side and load-independent: commits and rollbacks (serialization-failure retries,
    // refused writes) per request, from pg_stat_database. Other backends' counters land there
    // when they go idle, at most ~1 s late, hence the pause before each reading.
    const xacts = async () => {
      await new Promise((r) => setTimeout(r, 1500));
      await admin.query('select pg_stat_clear_snapshot()');
      const r = await admin.query<{ c: string; r: string }>('select xact_commit as c, xact_rollback as r from pg_stat_database where datname = $1', [name]);
      return { commits: Number(r.rows[0]?.c ?? 0), rollbacks: Number(r.rows[0]?.r ?? 0) };
    };
    // The server under test, when it runs on this machine: its processes' CPU is read from /proc.
    const postmaster = postmasterOf((await admin.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid);
    // Statements sent (each a round trip) and pool waits, summed over the instances (server/db/round-trips.ts).
    const counter = (text: string, name: string) => Number(new RegExp(`^${name} (\\d+)`, 'm').exec(text)?.[1] ?? 0);
    const roundTrips = async () => {
      const texts = await Promise.all(bases.map(async (b) => (await fetch(`${b}/metrics`)).text()));
      return texts.reduce((t, x) => ({ statements: t.statements + counter(x, 'paydesk_db_statements_total'), waits: t.waits + counter(x, 'paydesk_db_pool_waits_total') }), { statements: 0, waits: 0 });
    };
    // The instances' pool as their own config reads it (the same variable, default and bounds).
    const poolSize = loadConfig({ DATABASE_POOL_SIZE: process.env.DATABASE_POOL_SIZE }).databasePoolSize;
    const measure = async (scenario: string, instances: number, make: Scenario, pass = 1) => {
      const before = await xacts();
      const trips0 = await roundTrips();
      const window = cpuWindow(postmaster, children.map((c) => c.pid));
      const r = await spread(bases.slice(0, instances), opts.connections, opts.durationS, make);
      const spent = window();
      const trips1 = await roundTrips();
      const after = await xacts();
      const per = (x: number) => (r.requests > 0 ? Math.round((x / r.requests) * 1000) / 1000 : null);
      measured.set(`${scenario}:${instances}${pass > 1 ? `:${pass}` : ''}`, r);
      line({
        scenario,
        engine: 'postgres',
        instances,
        ...(pass > 1 ? { pass } : {}),
        // Each instance's pool (DATABASE_POOL_SIZE, which the instances and the ceilings inherit).
        pool_size: poolSize,
        requests: r.requests,
        rps: Math.round(r.rps * 10) / 10,
        p50_ms: r.p50_ms,
        p99_ms: r.p99_ms,
        errors: r.errors,
        commits_per_request: per(after.commits - before.commits),
        rollbacks_per_request: per(after.rollbacks - before.rollbacks),
        statements_per_request: per(trips1.statements - trips0.statements),
        pool_waits_per_request: per(trips1.waits - trips0.waits),
        // Server CPU (all instances, user + system) per request: steadier than rps on a shared machine.
        server_cpu_us_per_req: r.requests > 0 ? Math.round((spent.serversMs * 1000) / r.requests) : null,
        // The rest of the machine per request: PostgreSQL's processes and the load generator (this
        // process); then how busy all cores were and what the hypervisor took. With the cores full
        // at one instance, a second has no capacity to add.
        postgres_cpu_us_per_req: r.requests > 0 && spent.postgresMs !== null ? Math.round((spent.postgresMs * 1000) / r.requests) : null,
        loadgen_cpu_us_per_req: r.requests > 0 ? Math.round((spent.selfMs * 1000) / r.requests) : null,
        machine_busy: spent.machine_busy,
        steal: spent.steal,
      });
    };
    const ceiling = async (mode: 'insert' | 'read'): Promise<LoadResult | null> => {
      try {
        const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'bench/ceiling-pg.ts', mode, url, String(opts.durationS)], {
          timeout: opts.durationS * 5000 + 30_000,
        });
        const out = JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as LoadResult;
        line(out);
        return out;
      } catch (err) {
        note(`PostgreSQL ceiling ${mode} failed: ${(err as Error).message.slice(0, 500)}`);
        return null;
      }
    };
    await measure('session_create', 1, create);
    await measure('session_get', 1, get);
    await measure('session_get_spread', 1, getSpread);
    // The ceilings run against the same database while the instance idles: a real session is
    // the row they copy.
    const ceilings = { session_create: await ceiling('insert'), session_get: await ceiling('read') };
    bases.push(await start());
    await warm(bases[1]!);
    await measure('session_create', 2, create);
    await measure('session_get', 2, get);
    await measure('session_get_spread', 2, getSpread);
    // One instance again, the second idle: the one-instance figure of the 2/1 ratio is the mean of
    // the runs before and after the two-instance runs, so neither side is measured only later (on a
    // larger table, after the ceilings' writes) than the other.
    await measure('session_create', 1, create, 2);
    await measure('session_get', 1, get, 2);
    await measure('session_get_spread', 1, getSpread, 2);
    const round3 = (n: number) => Math.round(n * 1000) / 1000;
    // Two instances over the mean of the one-instance runs before and after them.
    const twoOverOne = (scenario: string) => {
      const ones = [measured.get(`${scenario}:1`)?.rps, measured.get(`${scenario}:1:2`)?.rps].filter((v): v is number => v !== undefined && v > 0);
      const two = measured.get(`${scenario}:2`)?.rps;
      return ones.length > 0 && two !== undefined ? round3(two / (ones.reduce((a, b) => a + b, 0) / ones.length)) : null;
    };
    line({ scenario: 'session_get_spread', engine: 'postgres', ratio_2_over_1: twoOverOne('session_get_spread') });
    for (const scenario of ['session_create', 'session_get'] as const) {
      const c = ceilings[scenario];
      const name = scenario === 'session_create' ? 'ceiling_pg_insert' : 'ceiling_pg_read';
      for (const instances of [1, 2]) {
        const m = measured.get(`${scenario}:${instances}`);
        if (m && c && c.rps > 0) line({ scenario, engine: 'postgres', instances, ceiling: name, ratio: round3(m.rps / c.rps) });
      }
      line({ scenario, engine: 'postgres', ratio_2_over_1: twoOverOne(scenario) });
    }
    // The PostgreSQL targets (docs/performance.md), as `{ target, threshold, value, holds }`.
    const check = (target: string, value: number | null, holds: (v: number) => boolean, threshold: string) =>
      line({ target, threshold, value, holds: value !== null && holds(value) });
    const ratioOf = (scenario: 'session_create' | 'session_get') => {
      const m = measured.get(`${scenario}:1`);
      const c = ceilings[scenario];
      return m && c && c.rps > 0 ? round3(m.rps / c.rps) : null;
    };
    check('postgres session_create / ceiling_pg_insert', ratioOf('session_create'), (v) => v >= 0.35, '>= 0.35');
    check('postgres session_get / ceiling_pg_read', ratioOf('session_get'), (v) => v >= 0.5, '>= 0.5');
    check('postgres session_create p99_ms', measured.get('session_create:1')?.p99_ms ?? null, (v) => v <= 150, '<= 150');
    check('postgres session_get p99_ms', measured.get('session_get:1')?.p99_ms ?? null, (v) => v <= 50, '<= 50');
    check('postgres session_create 2 instances / 1', twoOverOne('session_create'), (v) => v >= 1, '>= 1');
    check('postgres session_get 2 instances / 1', twoOverOne('session_get'), (v) => v >= 1, '>= 1');
    note('PostgreSQL: two instances share this machine\'s 2 cores with PostgreSQL and the load generator, so the 2-instance figure measures contention, not scale-out (docs/performance.md)');
  } finally {
    for (const c of children) await c.stop().catch(() => undefined);
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
    await admin.end();
    await server.stop();
  }
}
