import { accessSync, constants, existsSync, statfsSync, statSync } from 'node:fs';
import { sql, type Kysely } from 'kysely';
import { configProblems, loadConfig, type Config } from '../config';
import { connectDatabase, describeDatabase } from '../db/database';
import type { Database } from '../db/schema';
import { schemaStatus, staleReasonOf, refusalOf } from '../db/schema-version';
import { buildInfo } from '../version';

/**
 * `npm run admin -- doctor`: what an operator checks before (re)starting an instance, each as
 * one row: the build and Node, the configuration (every bad variable at once), the database
 * (reachable, schema current, on PostgreSQL room for one more instance's connections), Redis
 * when REDIS_URL is set, and the data folder (owner-only, writable, free disk). Read-only: it migrates nothing and creates no database. Exit 1 when a
 * row failed.
 */
type CheckStatus = 'ok' | 'warn' | 'fail' | 'skip';
export interface Check {
  name: string;
  status: CheckStatus;
  detail: string;
}

const NODE_FLOOR = [22, 12] as const;
const TIMEOUT_MS = 3_000;
/** Under this much free space in the data folder: a warning; under a tenth of it: a failure. */
const FREE_DISK_WARN_BYTES = 1024 ** 3;

const within = <T>(p: Promise<T>, what: string): Promise<T> => {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([p, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: no answer within ${TIMEOUT_MS / 1000} s`)), TIMEOUT_MS)))]).finally(() => clearTimeout(timer));
};
const firstLine = (err: unknown) => String((err as Error)?.message ?? err).split('\n')[0] ?? '';

function nodeCheck(): Check {
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  const ok = major > NODE_FLOOR[0] || (major === NODE_FLOOR[0] && minor >= NODE_FLOOR[1]);
  // A warning, not a failure: the server still starts on an older Node, but it is not supported there.
  return { name: 'node', status: ok ? 'ok' : 'warn', detail: ok ? `Node ${process.versions.node}` : `Node ${process.versions.node}: Paydesk supports ${NODE_FLOOR.join('.')} or later (README.md, "Install")` };
}

function configCheck(env: NodeJS.ProcessEnv): { checks: Check[]; config: Config } {
  const problems = configProblems(env);
  // The rest is checked with the bad variables left out (their defaults), so one run says everything.
  const usable = { ...env };
  for (const p of problems) delete usable[p.slice(0, p.indexOf(':'))];
  const config = loadConfig(usable);
  const checks: Check[] = problems.length
    ? problems.map((p) => ({ name: 'config', status: 'fail' as const, detail: p }))
    : [{ name: 'config', status: 'ok', detail: `${config.databaseUrl ? 'PostgreSQL' : 'SQLite'}, HOST ${config.host}, PORT ${config.port}` }];
  return { checks, config };
}

async function databaseChecks(config: Config): Promise<Check[]> {
  const where = describeDatabase(config);
  if (!config.databaseUrl && !existsSync(config.databaseFile)) {
    return [{ name: 'database', status: 'warn', detail: `no database yet at ${config.databaseFile}: the first \`npm run serve\` (or any admin command) creates it` }];
  }
  const database = connectDatabase(config);
  try {
    await within(sql`select 1`.execute(database.db), 'database');
    const status = await within(schemaStatus(database.db), 'schema');
    const refusal = refusalOf(status);
    const stale = staleReasonOf(status);
    const current = status.applied[status.applied.length - 1] ?? 'none';
    return [
      { name: 'database', status: 'ok', detail: `${where} answers` },
      ...(config.databaseUrl ? [await within(connectionsCheck(database.db, config.databasePoolSize), 'database')] : []),
      refusal
        ? { name: 'schema', status: 'fail', detail: refusal }
        : stale
          ? { name: 'schema', status: config.databaseUrl ? 'fail' : 'warn', detail: config.databaseUrl ? stale : `${stale} (SQLite migrates at start)` }
          : { name: 'schema', status: 'ok', detail: `current (${current})` },
    ];
  } catch (err) {
    return [
      { name: 'database', status: 'fail', detail: `${where}: ${firstLine(err)}` },
      { name: 'schema', status: 'skip', detail: 'the database did not answer' },
    ];
  } finally {
    await database.close().catch(() => undefined);
  }
}

/**
 * PostgreSQL: whether the server has room for one more instance's connections (its pool,
 * DATABASE_POOL_SIZE, plus one for the webhook dispatcher and one for the report worker) beside
 * the connections open now. Instances open their connections as load asks and close idle ones,
 * so a quiet moment undercounts them.
 */
async function connectionsCheck(db: Kysely<Database>, poolSize: number): Promise<Check> {
  const { rows } = await sql<{ max: number; reserved: number; open: number }>`
    select current_setting('max_connections')::int as max,
           current_setting('superuser_reserved_connections')::int as reserved,
           (select count(*) from pg_stat_activity where backend_type = 'client backend')::int as open`.execute(db);
  const { max, reserved, open } = rows[0]!;
  const wanted = poolSize + 2;
  const free = max - reserved - open;
  const detail = `an instance opens up to ${wanted} (a pool of DATABASE_POOL_SIZE ${poolSize}, 1 for webhooks, 1 for reports); the server allows ${max - reserved}, ${open} open now`;
  return free >= wanted
    ? { name: 'connections', status: 'ok', detail: `${detail}: room for ${Math.floor(free / wanted)} more instance(s)` }
    : { name: 'connections', status: 'warn', detail: `${detail}: lower DATABASE_POOL_SIZE or raise max_connections (docs/deployment.md)` };
}

async function redisCheck(config: Config): Promise<Check> {
  if (!config.redisUrl) return { name: 'redis', status: 'ok', detail: 'not configured: each instance counts its rate limits alone' };
  const { Redis } = await import('ioredis');
  const redis = new Redis(config.redisUrl, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0, connectTimeout: TIMEOUT_MS, retryStrategy: () => null });
  redis.on('error', () => undefined);
  try {
    await within(redis.connect(), 'redis');
    const pong = await within(redis.ping(), 'redis');
    return { name: 'redis', status: pong === 'PONG' ? 'ok' : 'fail', detail: `answers ${pong}` };
  } catch (err) {
    return { name: 'redis', status: 'fail', detail: firstLine(err) };
  } finally {
    redis.disconnect();
  }
}

function dataDirChecks(config: Config): Check[] {
  const dir = config.dataDir;
  if (!existsSync(dir)) return [{ name: 'data folder', status: 'warn', detail: `${dir} does not exist yet (created, owner-only, at the first start)` }];
  const out: Check[] = [];
  const st = statSync(dir);
  const open = st.mode & 0o077;
  if (!st.isDirectory()) out.push({ name: 'data folder', status: 'fail', detail: `${dir} is not a folder` });
  else if (open) out.push({ name: 'data folder', status: 'warn', detail: `${dir} is mode ${(st.mode & 0o777).toString(8)}: others may read it; \`chmod 700 ${dir}\`` });
  else {
    try {
      accessSync(dir, constants.W_OK | constants.R_OK | constants.X_OK);
      out.push({ name: 'data folder', status: 'ok', detail: `${dir} owner-only (${(st.mode & 0o777).toString(8)}) and writable` });
    } catch {
      out.push({ name: 'data folder', status: 'fail', detail: `${dir} is not writable by this user (uid ${process.getuid?.() ?? '?'})` });
    }
  }
  try {
    const fs = statfsSync(dir);
    const free = fs.bavail * fs.bsize;
    const gb = (free / 1024 ** 3).toFixed(1);
    out.push({ name: 'free disk', status: free < FREE_DISK_WARN_BYTES / 10 ? 'fail' : free < FREE_DISK_WARN_BYTES ? 'warn' : 'ok', detail: `${gb} GiB free in ${dir}` });
  } catch (err) {
    out.push({ name: 'free disk', status: 'skip', detail: firstLine(err) });
  }
  return out;
}

export async function doctor(env: NodeJS.ProcessEnv = process.env): Promise<{ ok: boolean; version: string; commit: string; checks: Check[] }> {
  const { checks: config, config: usable } = configCheck(env);
  const checks: Check[] = [nodeCheck(), ...config, ...(await databaseChecks(usable)), await redisCheck(usable), ...dataDirChecks(usable)];
  return { ok: checks.every((c) => c.status !== 'fail'), ...buildInfo(), checks };
}

/** The rows as a plain table: status, check, detail. */
export function doctorTable(result: { ok: boolean; version: string; commit: string; checks: Check[] }): string {
  const width = Math.max(...result.checks.map((c) => c.name.length));
  const rows = result.checks.map((c) => `${c.status.toUpperCase().padEnd(4)}  ${c.name.padEnd(width)}  ${c.detail}`);
  const failed = result.checks.filter((c) => c.status === 'fail').length;
  return [`paydesk ${result.version} (${result.commit})`, ...rows, failed ? `${failed} check(s) failed` : 'all checks passed'].join('\n');
}
