import { PostgresAdapter, type Kysely } from 'kysely';

/** True when this Kysely instance (or a transaction of it) talks to PostgreSQL rather than SQLite. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function isPostgres(db: Kysely<any>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}
