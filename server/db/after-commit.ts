import { AsyncLocalStorage } from 'node:async_hooks';
import type { Kysely } from 'kysely';
import { directSqliteOf } from './direct-sqlite';
import type { Database } from './schema';

/**
 * Work to do once the current transaction has committed. The outbox uses it to wake the
 * dispatcher only when the rows it must find are visible, and only once for a transaction
 * that was retried or run again. On PostgreSQL, server/db/postgres.ts sets the scope around
 * each transaction attempt; on SQLite the transaction holding the connection keeps it, and it
 * runs after that transaction's commit, which for a request's transaction is the group's
 * (server/db/sqlite-group-commit.ts); a rolled-back one drops it. Outside any transaction it
 * runs at once.
 */
const scope = new AsyncLocalStorage<Array<() => void>>();

export function afterCommit(trx: Kysely<Database>, fn: () => void): void {
  const queue = scope.getStore();
  if (queue) queue.push(fn);
  else if (!directSqliteOf(trx.getExecutor().adapter)?.afterCommit(fn)) fn();
}

/** Runs `body` collecting afterCommit work; the caller runs what was collected once it committed. */
export function collectAfterCommit<T>(body: () => Promise<T>): { queue: Array<() => void>; result: Promise<T> } {
  const queue: Array<() => void> = [];
  return { queue, result: scope.run(queue, body) };
}
