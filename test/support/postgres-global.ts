import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { connectDatabase, migrate } from '../../server/db/database';
import { startTestServer, withDatabase } from './postgres-cluster';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Admin URL of the PostgreSQL server the `postgres` project runs on. */
    pgAdminUrl: string;
    /** A migrated database each test database is copied from (CREATE DATABASE … TEMPLATE). */
    pgTemplate: string;
  }
}

/**
 * Drops every database named like `pattern`, several at a time (each DROP waits for a
 * checkpoint; concurrent ones share it). A worker that has exited may have left a CREATE or a
 * DROP of one still running on the server: this waits for those, and tries again until every
 * such database is gone.
 */
async function dropLeftovers(url: string, pattern: string): Promise<void> {
  const pool = new pg.Pool({ connectionString: url, max: 8 });
  try {
    for (let round = 1; ; round++) {
      const left = await pool.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname LIKE $1`, [pattern]);
      const running = await pool.query(`SELECT 1 FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND state = 'active' AND query ~* '^(CREATE|DROP) DATABASE' AND query LIKE $1`, [`%${pattern}`]);
      if (left.rows.length === 0 && running.rows.length === 0) return;
      if (round >= 200) throw new Error(`test databases still there: ${left.rows.map((r) => r.datname).join(', ')}`);
      const results = await Promise.allSettled(left.rows.map(({ datname }) => pool.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`)));
      if (results.some((r) => r.status === 'rejected') || running.rows.length > 0) await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    await pool.end();
  }
}

/** Global setup of the `postgres` vitest project: a server, and one migrated template database for this run. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startTestServer();
  const template = `paydesk_tpl_${process.pid}_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: server.url });
  const teardown = async () => {
    try {
      // Test databases a crashed worker left behind (named after this process: test/support/database.ts) go with the template.
      await dropLeftovers(server.url, `paydesk\\_t\\_${process.pid}\\_%`);
      await admin.query(`DROP DATABASE IF EXISTS ${template} WITH (FORCE)`);
      await admin.end();
    } finally {
      await server.stop();
    }
  };
  try {
    await admin.connect();
    await admin.query(`CREATE DATABASE ${template}`);
    const opened = connectDatabase({ databaseUrl: withDatabase(server.url, template), databaseFile: '' });
    try {
      await migrate(opened.db);
    } finally {
      await opened.close();
    }
  } catch (err) {
    await teardown().catch(() => undefined);
    throw err;
  }
  project.provide('pgAdminUrl', server.url);
  project.provide('pgTemplate', template);
  return teardown;
}
