import { sql } from 'kysely';
import type { Db } from './database';
import { isPostgres } from './engine';

/**
 * Runs `fn` unless another instance is running the job of the same `name` right now: on
 * PostgreSQL, a session advisory lock held on one pooled connection for the duration; on
 * SQLite (one process serves the file) it just runs. Jobs stay correct without it — every
 * move they make is a conditional update — the lock only saves N instances doing the same
 * scan each second. Returns false when skipped.
 */
export async function runExclusive(db: Db, name: string, fn: () => Promise<unknown>): Promise<boolean> {
  if (!isPostgres(db)) {
    await fn();
    return true;
  }
  return db.connection().execute(async (conn) => {
    const got = await sql<{ ok: boolean }>`select pg_try_advisory_lock(hashtext(${name})) as ok`.execute(conn);
    if (!got.rows[0]?.ok) return false;
    try {
      await fn();
      return true;
    } finally {
      await sql`select pg_advisory_unlock(hashtext(${name}))`.execute(conn);
    }
  });
}
