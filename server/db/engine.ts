import { PostgresAdapter } from 'kysely';

/** True when this Kysely instance (or a transaction of it) talks to PostgreSQL rather than SQLite. */
export function isPostgres(db: { getExecutor(): { readonly adapter: unknown } }): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}
