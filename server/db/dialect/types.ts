import type { Kysely, RawBuilder, Transaction } from 'kysely';
import type { Database } from '../schema';

type Engine = 'sqlite' | 'postgres';

type Q = Kysely<Database> | Transaction<Database>;

/**
 * What SQLite and PostgreSQL say or do differently, for the code outside server/db/: each
 * difference a named capability with one implementation per engine (sqlite.ts, postgres.ts),
 * so a module reads the same on both. The larger ones have seams of their own: the session
 * search (server/db/search/), the webhook claim (server/db/claim/), the read stamp of the
 * caches (server/db/read-stamp.ts) and the report reader (server/db/reader.ts).
 */
export interface Dialect {
  /** The engine's name, for what is reported (metrics, `db:stats`), never to branch on. */
  readonly engine: Engine;
  /** The SQL function of the larger of two values (`GREATEST`; SQLite's two-argument `MAX`). */
  readonly greatest: 'GREATEST' | 'MAX';
  /**
   * Whether several writes of one request pay to be sent as one statement (data-modifying CTEs):
   * true where each statement is a round trip to a server (PostgreSQL), false where a statement
   * is a call into the process (SQLite, which also has no data-modifying CTEs).
   */
  readonly oneStatementWrites: boolean;
  /**
   * The rows of a JSON array of arrays bound as one parameter: `from` is the FROM item (alias
   * `e`), `at(i)` the i-th element of a row as text, `integerAt(i)` as an integer, and `where` the
   * clause an INSERT … SELECT needs before its ON CONFLICT (SQLite's parsing ambiguity).
   */
  jsonRows(json: unknown): { from: RawBuilder<unknown>; at(i: number): RawBuilder<unknown>; integerAt(i: number): RawBuilder<unknown>; where: RawBuilder<unknown> };
  /**
   * Runs `fn` in a transaction that no other run of the job `name` overlaps, reading what is
   * committed (PostgreSQL: READ COMMITTED and a transaction-scoped advisory lock; SQLite: its
   * one writer already serialises them).
   */
  exclusiveJob<T>(db: Kysely<Database>, name: string, fn: (trx: Transaction<Database>) => Promise<T>): Promise<T>;
  /** Holds back the writers of `table` until the transaction ends (SQLite's write lock already does). */
  lockTable(trx: Transaction<Database>, table: keyof Database): Promise<void>;
  /** Bytes per table (its indexes with it) and of the whole database. */
  sizes(db: Q): Promise<{ tables: Map<string, number>; total: number }>;
  /** Tells the other instances on the database that `channel` has news, at the commit (no other instance on SQLite). */
  notify(trx: Q, channel: string): Promise<void>;
}

