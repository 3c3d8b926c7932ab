import type SQLite from 'better-sqlite3';

/**
 * The SQLite connection behind a Kysely instance, for the compiled hot-path statements
 * (server/db/precompiled.ts) to run without Kysely's executor. Keyed by the dialect adapter,
 * which a Kysely instance shares with every transaction and `withPlugin` copy made from it.
 */
export interface DirectSqlite {
  /** The connection's statement cache (server/db/database.ts): counts writes for the change stamp. */
  prepare(sql: string): SQLite.Statement;
  /** True while a transaction is open on the connection (better-sqlite3's `inTransaction`). */
  inTransaction(): boolean;
  /** One statement in the current group commit (server/db/sqlite-group-commit.ts `groupWrite`). */
  groupWrite<R>(run: () => R, alone: () => Promise<R>): Promise<R>;
  /** Queues `fn` for after the commit of the transaction holding the connection; false when none does. */
  afterCommit(fn: () => void): boolean;
}

const handles = new WeakMap<object, DirectSqlite>();

export function registerDirectSqlite(adapter: object, handle: DirectSqlite): void {
  handles.set(adapter, handle);
}

export function directSqliteOf(adapter: object): DirectSqlite | undefined {
  return handles.get(adapter);
}
