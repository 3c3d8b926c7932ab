import { sql, type Kysely, type SelectQueryBuilder } from 'kysely';
import type { Database } from './schema';
import { isPostgres } from './engine';

type Db = Kysely<Database>;

/**
 * What the caches of this process (the API keys, the quote's fee rules, the kept answers of
 * server/http/kept-answers.ts) are stamped with, the same calls on both engines. Where this
 * process sees every write (SQLite: one file, its own writes counted, other connections' commits
 * in `PRAGMA data_version`) the stamps are exact; on PostgreSQL other instances write unseen,
 * so the change stamp is bounded in time (server/db/postgres.ts) and nothing has a read stamp.
 * Registered when the database is opened (database.ts); a handle derived from the opened one
 * (`withPlugin`: a test's SQL recorder) has none and gets no caching.
 */

const changeStamps = new WeakMap<Db, (commitVersion?: number) => string>();
const readStamps = new WeakMap<Db, { commitVersion: () => number; counter: { readonly writes: number } }>();

export function registerChangeStamp(db: Db, stamp: (commitVersion?: number) => string): void {
  changeStamps.set(db, stamp);
}

export function registerReadStamp(db: Db, stamp: { commitVersion: () => number; counter: { readonly writes: number } }): void {
  readStamps.set(db, stamp);
}

/**
 * A stamp that changes whenever merchants, integrations, API keys or fee rules may have changed:
 * a write statement of this process that may touch them (one whose target table cannot be
 * read off counts too; server/db/credential-writes.ts) or a commit by another connection
 * (e.g. the operator CLI revoking a key). The API-key cache and the quote's fee rules
 * (server/modules/payments/quote-inputs.ts) stay valid while it is unchanged. `commitVersion`:
 * the one a caller has just read (commitVersion, or a column of selectCommitVersion).
 * Unknown handles get a fresh stamp every call (no caching).
 */
export function changeStamp(db: Db, commitVersion?: number): string {
  const stamp = changeStamps.get(db);
  return stamp ? stamp(commitVersion) : `nocache:${Math.random()}`;
}

/**
 * The count of commits by other connections, read now (SQLite's `PRAGMA data_version`: the
 * operator CLI, a second process, another handle on the file), or undefined where there is none
 * to read (PostgreSQL, a derived handle).
 */
export function commitVersion(db: Db): number | undefined {
  return readStamps.get(db)?.commitVersion();
}

/** What a kept answer is stamped with: read before its rows are. */
export interface ReadStamp {
  /** Other connections' commits (commitVersion). */
  dataVersion: number;
  /**
   * Write statements this process has run on the handle's connection (anything SQLite does not
   * call read-only: INSERT, UPDATE, DELETE, BEGIN IMMEDIATE, …), through every path (Kysely, the
   * precompiled and group-committed statements, the group commit's own): they all take their
   * statements from the one statement cache (statement-cache.ts), which counts them when it
   * hands them out, before they run.
   */
  writes: number;
}

/**
 * The stamp of what any row may look like now, or undefined where this process does not see
 * every write (PostgreSQL, a derived handle): nothing may then be kept. `known`: the commit
 * version this request has just read.
 */
export function readStamp(db: Db, known: number | undefined): ReadStamp | undefined {
  const stamp = readStamps.get(db);
  if (stamp === undefined) return undefined;
  return { dataVersion: known ?? stamp.commitVersion(), writes: stamp.counter.writes };
}

/**
 * On SQLite a separate `PRAGMA data_version` is a read transaction of its own (~4 µs: WAL lock
 * calls), about as much as a lookup by primary key. A hot read selects it in the same statement
 * instead, as the column `data_version` (absent where commitVersion is undefined), and passes
 * it to changeStamp: the stamp is then as of that statement. Call it in a precompiled builder.
 */
export function selectCommitVersion<DB, TB extends keyof DB, O>(db: Db, q: SelectQueryBuilder<DB, TB, O>): SelectQueryBuilder<DB, TB, O & { data_version?: number }> {
  const stamped = isPostgres(db) ? q : q.select(sql<number>`(select data_version from pragma_data_version())`.as('data_version'));
  return stamped as unknown as SelectQueryBuilder<DB, TB, O & { data_version?: number }>;
}
