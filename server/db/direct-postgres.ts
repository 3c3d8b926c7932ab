import type Pg from 'pg';
import { isDeadConnectionError } from './connection-errors';

/**
 * The pg pool behind the server's PostgreSQL Kysely instance, for the compiled hot-path
 * statements (server/db/precompiled.ts) that run outside a transaction: they take a pooled client
 * and send the text themselves, without Kysely's executor (its connection provider, the plugins'
 * result hooks and the promises around them), as the SQLite side runs them on its connection
 * (direct-sqlite.ts). Keyed by the instance itself: a handle derived from it (`withPlugin`: a
 * test's SQL recorder) or a transaction has none and keeps Kysely's path.
 */
const pools = new WeakMap<object, Pg.Pool>();

export function registerDirectPostgres(db: object, pool: Pg.Pool): void {
  pools.set(db, pool);
}

export function directPostgresOf(db: object): Pg.Pool | undefined {
  return pools.get(db);
}

/** A statement that only reads: running it again changes nothing. */
const READ_ONLY = /^\s*select\b/i;

/**
 * One autocommit statement on a pooled client: the client's `query` (named when the text is a
 * hot one, server/db/prepared-statements.ts), released to the pool whatever happens. A pooled
 * connection found dead (its backend terminated while it sat idle: a failover, a restart) is
 * dropped, and a statement that is safe to repeat (a read, or a write the caller marks so: one an
 * Idempotency-Key guards) runs again on the next connection, at most once per connection the pool
 * holds, as a transaction does at BEGIN (server/db/postgres.ts); any other answers 503.
 */
export async function queryOnPool<R>(pool: Pg.Pool, text: string, values: readonly unknown[], safeToRepeat = false): Promise<R[]> {
  const repeatable = safeToRepeat || READ_ONLY.test(text);
  for (let dead = 0; ; dead++) {
    const client = await pool.connect();
    let failed: unknown;
    try {
      const result = await client.query(text, values as unknown[]);
      return result.rows as R[];
    } catch (err) {
      failed = err;
      if (!repeatable || !isDeadConnectionError(err) || dead >= (pool.options.max ?? 10)) throw err;
    } finally {
      releaseClient(client, failed);
    }
  }
}

/**
 * Gives a pooled client back; one whose connection died under it (a failover, a restart,
 * `pg_terminate_backend`) is released with the error, so the pool drops it at once. Released
 * plainly, it went back among the idle ones whenever its socket had not closed yet, and the next
 * request to take it failed the same way.
 */
export function releaseClient(client: Pg.PoolClient, failed?: unknown): void {
  client.release(failed !== undefined && isDeadConnectionError(failed) ? (failed as Error) : undefined);
}
