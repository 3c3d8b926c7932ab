import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { connectDatabase, migrate } from '../../server/db/database';
import { startTestServer, withDatabase } from '../../bench/postgres-cluster';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Admin URL of the PostgreSQL server the `postgres` project runs on. */
    pgAdminUrl: string;
    /** A migrated database each test database is copied from (CREATE DATABASE … TEMPLATE). */
    pgTemplate: string;
  }
}

/** Global setup of the `postgres` vitest project: a server, and one migrated template database for this run. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startTestServer();
  const template = `paydesk_tpl_${process.pid}_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: server.url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${template}`);
  const opened = connectDatabase({ databaseUrl: withDatabase(server.url, template), databaseFile: '' });
  try {
    await migrate(opened.db);
  } finally {
    await opened.close();
  }
  project.provide('pgAdminUrl', server.url);
  project.provide('pgTemplate', template);
  return async () => {
    // Test databases a crashed worker left behind go with the template.
    const left = await admin.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname LIKE $1`, [`paydesk_t_${process.pid}_%`]);
    for (const { datname } of left.rows) await admin.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
    await admin.query(`DROP DATABASE IF EXISTS ${template} WITH (FORCE)`);
    await admin.end();
    await server.stop();
  };
}
