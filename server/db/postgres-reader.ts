import { Kysely } from 'kysely';
import { PaydeskPostgresDialect } from './postgres-driver';
import { paydeskPool } from './postgres';
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
  // As the server's pool (no JIT), and no writes.
  const pool = paydeskPool({ connectionString, max: 1, application_name: 'paydesk-reports' }, 'SET jit = off; SET default_transaction_read_only = on');
  const db = new Kysely<Database>({ dialect: new PaydeskPostgresDialect(pool) });
  return { db, close: () => db.destroy() };
}
