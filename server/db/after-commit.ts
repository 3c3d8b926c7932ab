import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Work to do once the current transaction has committed (PostgreSQL, server/db/postgres.ts
 * sets the scope around each transaction attempt). The outbox uses it to wake the dispatcher
 * only when the rows it must find are visible to the pool's other connections, and only once
 * for a transaction that was retried. Outside such a scope (SQLite, whose one connection
 * makes the dispatcher's next query wait for the commit anyway) it runs at once.
 */
const scope = new AsyncLocalStorage<Array<() => void>>();

export function afterCommit(fn: () => void): void {
  const queue = scope.getStore();
  if (queue) queue.push(fn);
  else fn();
}

/** Runs `body` collecting afterCommit work; the caller runs what was collected once it committed. */
export function collectAfterCommit<T>(body: () => Promise<T>): { queue: Array<() => void>; result: Promise<T> } {
  const queue: Array<() => void> = [];
  return { queue, result: scope.run(queue, body) };
}
