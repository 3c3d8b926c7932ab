import { sql } from 'kysely';
import type { Db } from './database';
import { directPostgresOf } from './direct-postgres';
import { precompiled } from './precompiled';

/**
 * What a session row looks like now, as a version an answer built from it can be kept by
 * (server/http/kept-answers.ts), where this process does not see every write: on PostgreSQL other
 * instances write unseen, so an answer is served again only after asking the row's version, one
 * short statement instead of reading, converting and serialising the row. The version is the
 * `xmin` of the row version (the transaction that wrote it: every UPDATE writes a new one) with
 * the row's `updated_at`, so two contents of one row never share a version. Undefined where
 * answers are kept by the read stamp instead (SQLite, server/db/read-stamp.ts), on a handle
 * derived from the opened one (a test's recorder: no caching), and for a session that is not the
 * merchant's.
 */
const sessionVersion = precompiled((db, p: { id: string; merchantId: string }) =>
  db
    .selectFrom('checkout_sessions')
    .select(sql<string>`xmin::text || ' ' || updated_at`.as('v'))
    .where('id', '=', p.id)
    .where('merchant_id', '=', p.merchantId),
);

export async function sessionRowVersion(db: Db, merchantId: string, id: string): Promise<string | undefined> {
  if (directPostgresOf(db) === undefined) return undefined;
  return (await sessionVersion(db, { id, merchantId }))[0]?.v;
}
