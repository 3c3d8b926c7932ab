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
export const READ_ONLY = /^\s*select\b/i;

/**
 * One autocommit statement on a pooled client: the client's `query` (named when the text is a
 * hot one, server/db/prepared-statements.ts). A read, or a write the caller marks safe to repeat
 * (one an Idempotency-Key guards), runs again on a connection found dead (onPooledClient); any
 * other answers 503.
 */
export async function queryOnPool<R>(pool: Pg.Pool, text: string, values: readonly unknown[], safeToRepeat = false): Promise<R[]> {
  return onPooledClient(pool, safeToRepeat || READ_ONLY.test(text), async (client) => (await client.query(text, values as unknown[])).rows as R[]);
}

/**
 * `use` on a pooled client, which goes back to the pool whatever happens; one whose connection
 * died under it (its backend terminated while it sat idle: a failover, a restart,
 * `pg_terminate_backend`) is released with the error, so the pool drops it at once (released
 * plainly, it went back among the idle ones whenever its socket had not closed yet, and the next
 * request to take it failed the same way). When `repeatable` (`use` only reads, or may run twice
 * with the effect of once), `use` runs again on the next connection, at most once per connection
 * the pool holds, as a transaction does at BEGIN (server/db/postgres.ts); otherwise the error
 * stands (503).
 */
export async function onPooledClient<T>(pool: Pg.Pool, repeatable: boolean, use: (client: Pg.PoolClient) => Promise<T>): Promise<T> {
  for (let dead = 0; ; dead++) {
    const client = await pool.connect();
    let failed: unknown;
    try {
      return await use(client);
    } catch (err) {
      failed = err;
      if (!repeatable || !isDeadConnectionError(err) || dead >= (pool.options.max ?? 10)) throw err;
    } finally {
      client.release(failed !== undefined && isDeadConnectionError(failed) ? (failed as Error) : undefined);
    }
  }
}
