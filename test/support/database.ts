import { join } from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { connectDatabase, openDatabase, type Engine, type OpenedDatabase } from '../../server/db/database';
import { withDatabase } from '../../bench/postgres-cluster';

/** Which engine this vitest project tests: `postgres` in the postgres project (vitest.config.ts), else SQLite. */
export const testEngine: Engine = process.env.PAYDESK_TEST_ENGINE === 'postgres' ? 'postgres' : 'sqlite';
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

/** A fresh PostgreSQL database copied from the run's migrated template: the env a process needs to share it. */
export async function createPostgresDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const adminUrl = inject('pgAdminUrl');
  const name = `paydesk_t_${process.ppid}_${process.pid}_${++seq}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    for (let attempt = 1; ; attempt++) {
      try {
        await admin.query(`CREATE DATABASE ${name} TEMPLATE ${inject('pgTemplate')}`);
        break;
      } catch (err) {
        // Two workers copying the template at the same instant: one waits and tries again.
        if (attempt >= 20 || !/being accessed by other users/.test(String((err as Error).message))) throw err;
        await new Promise((r) => setTimeout(r, 50 * attempt));
      }
    }
  } finally {
    await admin.end();
  }
  return {
    url: withDatabase(adminUrl, name),
    drop: async () => {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}

/** A migrated, empty database of the project's engine: a SQLite file in `dataDir`, or a fresh PostgreSQL database. */
export async function createTestDatabase(dataDir: string): Promise<TestDatabase> {
  if (!onPostgres) {
    const opened = openDatabase(join(dataDir, 'paydesk.sqlite'));
    return { opened, url: null, dispose: () => opened.close() };
  }
  const created = await createPostgresDatabase();
  const opened = connectDatabase({ databaseUrl: created.url, databaseFile: '' });
  return {
    opened,
    url: created.url,
    dispose: async () => {
      await opened.close();
      await created.drop();
    },
  };
}
