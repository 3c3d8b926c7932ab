import { sql, type SelectQueryBuilder } from 'kysely';
import type { Db } from './database';
import { directPostgresOf } from './direct-postgres';
import { isPostgres } from './engine';
import { precompiled } from './precompiled';

/**
 * What a session row looks like now, as a version an answer built from it can be kept by
 * (server/http/kept-answers.ts), where this process does not see every write: on PostgreSQL other
 * instances write unseen, so a kept answer is served again only after asking the row's version,
 * one short statement instead of reading, converting and serialising the row. The version is the
 * `xmin` of the row version (the transaction that wrote it: every UPDATE writes a new one) with
 * the row's `updated_at`, so two contents of one row never share a version. None where answers
 * are kept by the read stamp instead (SQLite, server/db/read-stamp.ts) and on a handle derived
 * from the opened one (a test's recorder: no caching).
 */
const VERSION = sql<string>`xmin::text || ' ' || updated_at`;

const sessionVersion = precompiled((db, p: { id: string; merchantId: string }) =>
  db.selectFrom('checkout_sessions').select(VERSION.as('v')).where('id', '=', p.id).where('merchant_id', '=', p.merchantId),
);

/** The version of the merchant's session row now (undefined: no version here, or not the merchant's session). */
export async function sessionRowVersion(db: Db, merchantId: string, id: string): Promise<string | undefined> {
  if (directPostgresOf(db) === undefined) return undefined;
  return (await sessionVersion(db, { id, merchantId }))[0]?.v;
}

/**
 * A read of session rows that also selects each row's version, as the column `row_version`, in
 * the same statement (PostgreSQL; absent elsewhere): what the answer built from the row is then
 * kept by. Call it in a precompiled builder.
 */
export function selectRowVersion<DB, TB extends keyof DB, O>(db: Db, q: SelectQueryBuilder<DB, TB, O>): SelectQueryBuilder<DB, TB, O & { row_version?: string }> {
  const versioned = isPostgres(db) ? q.select(VERSION.as('row_version') as never) : q;
  return versioned as unknown as SelectQueryBuilder<DB, TB, O & { row_version?: string }>;
}

/** The version `selectRowVersion` read with `row`, when `db` keeps answers by it. */
export const rowVersionOf = (db: Db, row: { row_version?: string }): string | undefined => (directPostgresOf(db) === undefined ? undefined : row.row_version);
