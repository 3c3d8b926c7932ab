import pg from 'pg';
import { Kysely, PostgresDialect } from 'kysely';
import { CONNECT_TIMEOUT_MS, STATEMENT_TIMEOUT_MS, pgTypes } from './postgres';
import type { Db } from './database';
import type { Database } from './schema';

/**
 * One PostgreSQL connection for long reads off the main thread (the report worker,
 * server/modules/reports/report-worker.ts), opened from the server's DATABASE_URL: a pool of
 * one, so a report holds at most one backend, and the same type parsing as the server's pool
 * (int8 and numeric as numbers), so a report's bytes are those the server would build.
 * Read-only (`default_transaction_read_only`): it is only given report queries, each a
 * statement of its own (no transaction spans the batches of an export).
 */
export function openPostgresReader(connectionString: string): { db: Db; close(): Promise<void> } {
  const pool = new pg.Pool({
    connectionString,
    max: 1,
    types: pgTypes,
    application_name: 'paydesk-reports',
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    keepAlive: true,
    statement_timeout: STATEMENT_TIMEOUT_MS,
  });
  pool.on('error', () => undefined);
  pool.on('connect', (client) => {
    client.on('error', () => undefined);
    // As the server's pool (postgres.ts: JIT compiling cost more than the queries), and no writes.
    client.query('SET jit = off; SET default_transaction_read_only = on').catch(() => undefined);
  });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return { db, close: () => db.destroy() };
}
