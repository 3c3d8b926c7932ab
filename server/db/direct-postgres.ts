import type Pg from 'pg';

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

/**
 * One autocommit statement on a pooled client: the client's `query` (named when the text is a
 * hot one, server/db/prepared-statements.ts), released to the pool whatever happens (pg-pool
 * drops a client whose connection broke).
 */
export async function queryOnPool<R>(pool: Pg.Pool, text: string, values: readonly unknown[]): Promise<R[]> {
  const client = await pool.connect();
  try {
    const result = await client.query(text, values as unknown[]);
    return result.rows as R[];
  } finally {
    client.release();
  }
}
