import type { Kysely } from 'kysely';
import { directSqliteOf } from './direct-sqlite';
import type { Database } from './schema';

/**
 * Work to do once the current transaction has committed. The outbox uses it to wake the
 * dispatcher only when the rows it must find are visible, and only once for a transaction
 * that was retried or run again. On PostgreSQL, server/db/postgres.ts gives each transaction
 * attempt its queue, keyed by the transaction handle its callback receives (the one every write of
 * the transaction is made through); on SQLite the transaction holding the connection keeps it, and
 * it runs after that transaction's commit, which for a request's transaction is the group's
 * (server/db/sqlite-group-commit.ts); a rolled-back one drops it. Outside any transaction it runs
 * at once.
 *
 * Keyed by handle rather than carried in an AsyncLocalStorage: a store that is ever entered turns
 * on Node's promise hooks for the whole process, a cost on every promise of every request.
 */
const queues = new WeakMap<Kysely<Database>, Array<() => void>>();

export function afterCommit(trx: Kysely<Database>, fn: () => void): void {
  const queue = queues.get(trx);
  if (queue) queue.push(fn);
  else if (!directSqliteOf(trx.getExecutor().adapter)?.afterCommit(fn)) fn();
}

/**
 * Runs `body` with the transaction handle `trx`, collecting the afterCommit work made through it;
 * the caller runs what was collected once the transaction committed.
 */
export function collectAfterCommit<T>(trx: Kysely<Database>, queue: Array<() => void>, body: () => Promise<T>): Promise<T> {
  queues.set(trx, queue);
  return body();
}
