import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/**
 * Where the PostgreSQL half of the suite and `npm run bench`'s PostgreSQL run go (docs/deployment.md):
 * 1. PAYDESK_TEST_DATABASE_URL, when set: that server (any database on it; the suite creates its own);
 * 2. the machine's PostgreSQL at 127.0.0.1:5432 (user postgres, trust auth), when it answers;
 * 3. otherwise (or with PAYDESK_TEST_PG_THROWAWAY=1) a throwaway cluster: initdb in a temp folder, on a free loopback port, started
 *    now and removed afterwards. initdb refuses to run as root, so as root it runs as the
 *    `postgres` user (runuser), which Debian's postgresql package creates.
 */
export interface TestServer {
  /** An admin URL: CREATE DATABASE / DROP DATABASE are run through it. */
  url: string;
  stop(): Promise<void>;
}

async function answers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

function findBin(name: string): string | undefined {
  const onPath = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).stdout.trim();
  if (onPath) return onPath;
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root).sort((a, b) => Number(b) - Number(a));
  for (const v of versions) if (existsSync(join(root, v, 'bin', name))) return join(root, v, 'bin', name);
  return undefined;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      s.close(() => resolve(port));
    });
  });
}

export async function startTestServer(given = process.env.PAYDESK_TEST_DATABASE_URL): Promise<TestServer> {
  if (given) {
    if (!(await answers(given))) throw new Error(`the PostgreSQL server given does not answer: ${given.replace(/:[^:@/]*@/, ':***@')}`);
    return { url: given, stop: async () => undefined };
  }
  const local = 'postgres://postgres@127.0.0.1:5432/test';
  // PAYDESK_TEST_PG_THROWAWAY=1 skips the local server: how a machine without one runs.
  if (process.env.PAYDESK_TEST_PG_THROWAWAY !== '1' && (await answers(local))) return { url: local, stop: async () => undefined };

  const initdb = findBin('initdb');
  const pgCtl = findBin('pg_ctl');
  if (!initdb || !pgCtl) {
    throw new Error('PostgreSQL tests need a server: set PAYDESK_TEST_DATABASE_URL, run one on 127.0.0.1:5432, or install the binaries (apt-get install postgresql; .ci/run does)');
  }
  const dir = mkdtempSync(join(tmpdir(), 'paydesk-pg-'));
  chmodSync(dir, 0o700);
  const asRoot = userInfo().uid === 0;
  const run = (bin: string, args: string[]) => {
    if (!asRoot) return execFileSync(bin, args, { stdio: 'pipe' });
    return execFileSync('runuser', ['-u', 'postgres', '--', bin, ...args], { stdio: 'pipe' });
  };
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    chownSync(dir, uid, gid);
  }
  const data = join(dir, 'data');
  let stopped = false;
  const stopNow = () => {
    if (stopped) return;
    stopped = true;
    try {
      if (existsSync(join(data, 'postmaster.pid'))) run(pgCtl, ['-D', data, '-m', 'immediate', '-w', 'stop']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  // A run that ends without calling stop() (an error in the setup, Ctrl-C, process.exit) must not
  // leave a server and its folder behind: stopped synchronously on the way out.
  process.once('exit', () => {
    try {
      stopNow();
    } catch {
      // Exiting anyway; nothing left to report to.
    }
  });
  try {
    run(initdb, ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
    const port = await freePort();
    const opts = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300`;
    run(pgCtl, ['-D', data, '-o', opts, '-l', join(dir, 'log'), '-w', '-t', '60', 'start']);
    return { url: `postgres://postgres@127.0.0.1:${port}/postgres`, stop: async () => stopNow() };
  } catch (err) {
    stopNow();
    throw err;
  }
}

/** `url` with its database name replaced. */
export function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}
