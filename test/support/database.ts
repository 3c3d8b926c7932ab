import { join } from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { connectDatabase, migrate, openDatabase, type Engine, type OpenedDatabase } from '../../server/db/database';
import { openPostgres, type OpenedPostgres } from '../../server/db/postgres';
import { withDatabase } from './postgres-cluster';

/** Which engine this vitest project tests: `postgres` in the postgres project (vitest.config.ts), else SQLite. */
const testEngine: Engine = process.env.PAYDESK_TEST_ENGINE === 'postgres' ? 'postgres' : 'sqlite';
export const onPostgres = testEngine === 'postgres';

export interface TestDatabase {
  opened: OpenedDatabase;
  /** DATABASE_URL for processes (CLI, servers) that must share it; null on SQLite (they use DATA_DIR). */
  url: string | null;
  /** Closes and, on PostgreSQL, drops it. */
  dispose(): Promise<void>;
}

let seq = 0;

/** DATA_DIR → DATABASE_URL of the test apps alive in this worker: runAdmin gives the CLI the same database. */
export const databaseUrls = new Map<string, string>();

/**
 * On a server with fsync on (the machine's own), CREATE DATABASE … TEMPLATE costs 0.2–0.5 s and
 * DROP DATABASE 1.5–2.5 s (it waits for a checkpoint), and every test app takes one of each. So
 * a test app's database is dropped in the background after it closes, nobody waiting for it,
 * and a test file that has taken two (a `beforeEach` file) gets the next one copied ahead while
 * its test runs; `settleDatabases` (after every test file of the postgres project:
 * test/support/postgres-file.ts) drops that spare. A drop still running when the worker exits
 * finishes on the server; whatever is left (a worker that crashed, a copy that was still being
 * made) is dropped by the run's global teardown, which finds it by the `paydesk_t_<run pid>_`
 * prefix (test/support/postgres-global.ts).
 */
// 4: a background DROP waiting for its checkpoint must not hold up the next test's CREATE.
let adminPool: pg.Pool | undefined;
const admin = () => (adminPool ??= new pg.Pool({ connectionString: inject('pgAdminUrl'), max: 4, allowExitOnIdle: true }));
let ahead: Promise<string> | undefined;
let taken = 0;

async function copyTemplate(): Promise<string> {
  const name = `paydesk_t_${process.ppid}_${process.pid}_${++seq}_${Math.random().toString(36).slice(2, 8)}`;
  for (let attempt = 1; ; attempt++) {
    try {
      await admin().query(`CREATE DATABASE ${name} TEMPLATE ${inject('pgTemplate')}`);
      // A commit need not wait for the disk here (the machine's server runs with fsync on): the
      // tests kill app processes, never the database server, so nothing they read changes.
      await admin().query(`ALTER DATABASE ${name} SET synchronous_commit = off`);
      return name;
    } catch (err) {
      // Two workers copying the template at the same instant: one waits and tries again.
      if (attempt >= 20 || !/being accessed by other users/.test(String((err as Error).message))) throw err;
      await new Promise((r) => setTimeout(r, 50 * attempt));
    }
  }
}

async function dropDatabase(name: string): Promise<void> {
  await admin().query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
}

/** A fresh PostgreSQL database copied from the run's migrated template: the env a process needs to share it. */
export async function createPostgresDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const next = ahead ?? copyTemplate();
  ahead = undefined;
  if (++taken >= 2) {
    ahead = copyTemplate();
    // A failure shows when the next test takes it; until then it must not count as unhandled.
    ahead.catch(() => undefined);
  }
  const name = await next;
  return { url: withDatabase(inject('pgAdminUrl'), name), drop: () => dropDatabase(name) };
}

/**
 * A fresh, migrated PostgreSQL database of one test's own, opened with a pool of `poolSize`
 * connections: `use` gets it and its URL; afterwards it is closed and dropped, whatever happened.
 */
export async function withFreshPostgres<R>(poolSize: number, use: (opened: OpenedPostgres, url: string) => Promise<R>): Promise<R> {
  const { url, drop } = await createPostgresDatabase();
  try {
    const opened = openPostgres(url, { poolSize });
    try {
      await migrate(opened.db);
      return await use(opened, url);
    } finally {
      await opened.db.destroy();
    }
  } finally {
    await drop();
  }
}

/** After a test file: the copy made ahead is dropped (in the background too). */
export function settleDatabases(): void {
  const spare = ahead;
  ahead = undefined;
  taken = 0;
  spare?.then((name) => dropDatabase(name)).catch(() => undefined);
}

/** A migrated, empty database of the project's engine: a SQLite file in `dataDir`, or a fresh PostgreSQL database. */
export async function createTestDatabase(dataDir: string): Promise<TestDatabase> {
  if (!onPostgres) {
    // Unsynced commits (server/db/database.ts CommitDurability): no test power-cuts the machine.
    // test/integration/durability-strace.test.ts and durability-postgres.test.ts test the synced ones.
    const opened = openDatabase(join(dataDir, 'paydesk.sqlite'), 'testOnlyUnsynced');
    return { opened, url: null, dispose: () => opened.close() };
  }
  const created = await createPostgresDatabase();
  const opened = connectDatabase({ databaseUrl: created.url, databaseFile: '' }, 'testOnlyUnsynced');
  return {
    opened,
    url: created.url,
    dispose: async () => {
      await opened.close();
      // In the background (see above): a failed drop is retried by the run's teardown.
      created.drop().catch(() => undefined);
    },
  };
}
