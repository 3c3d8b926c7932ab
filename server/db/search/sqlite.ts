import { sql, type Kysely } from 'kysely';
import type { Database } from '../schema';
import { slipReferenceKey } from '../../lib/slip-reference';
import { collectHits, searchable } from './common';
import { catchUpSearchIndex } from './sqlite-index';
import { newestMatching } from './sqlite-ranges';
import type { Hit, Key, SearchScope, SessionSearch } from './types';

/**
 * The session search on SQLite: "contains" is an FTS5 phrase on the trigram ranges
 * (sqlite-ranges.ts, filled behind the writes by sqlite-index.ts), newest by insertion (the FTS5
 * rowid); the sessions found are keyed by their rowid (the FTS5 index's own key, and a lookup
 * without an index in between) and the list reads them through `json_each`.
 */

/** One FTS5 phrase: between double quotes every character is literal but `"`, written twice. */
const ftsPhrase = (s: string) => `"${s.replace(/"/g, '""')}"`;

const key = sql<Key>`h.rowid`;

/**
 * The merchant's newest sessions whose name or invoice ref (or only invoice ref) contains `q`
 * (3+ characters, the trigram index), or, shorter, whose invoice ref is `q`: at most cap + 1.
 */
function newestContaining(q: string, scope: SearchScope, only?: 'invoice_ref') {
  const { merchantId, cap } = scope;
  if (!searchable(q)) {
    return sql<Hit>`SELECT ${key} AS k FROM checkout_sessions h WHERE h.merchant_id = ${merchantId} AND h.invoice_ref = ${q} ORDER BY h.created_at DESC LIMIT ${cap + 1}`;
  }
  // FTS5 returns its rowids newest (last inserted) first, range by range (sqlite-ranges.ts), and stops at the limit.
  const match = only ? `${only} : ${ftsPhrase(q)}` : ftsPhrase(q);
  return { execute: (db: Kysely<Database>) => newestMatching(db, match, merchantId, cap + 1) };
}

/** The exact parts of a `q` search (references, phone, slip, id and its first characters): at most cap + 1. */
function exactly(db: Kysely<Database>, q: string, scope: SearchScope) {
  const { cap } = scope;
  const slip = slipReferenceKey(q);
  const sessions = () => db.selectFrom('checkout_sessions as h').select(key.as('k'));
  // `<> ''`: the reference index leaves out attempts still waiting for their provider's (migration 0023).
  const attempts = db.selectFrom('payment_attempts as a').where((a) => a.or([a.and([a('a.provider_reference', '=', q), a('a.provider_reference', '<>', sql.lit(''))]), a('a.payment_reference', '=', q), ...(/^\d{4}$/.test(q) ? [a('a.phone_last4', '=', q)] : [])]));
  let hits = sessions().where('h.id', '=', q);
  hits = hits.union(sessions().where('h.id', 'in', attempts.select('a.session_id')));
  // The printed slip reference as a teller would type it (any case, dashes or not, O/0, I/1).
  if (slip) {
    const slips = db.selectFrom('cash_slips as c').where('c.reference_key', '=', slip);
    hits = hits.union(sessions().where('h.id', 'in', slips.select('c.session_id')));
  }
  if (q.length >= 6) {
    // Ids are ASCII: on SQLite (binary collation) every id starting with q sorts in [q, q + U+10FFFF).
    hits = hits.union(sessions().where('h.id', '>=', q).where('h.id', '<', `${q}\u{10FFFF}`));
  }
  return sql<Hit>`SELECT k FROM (${hits}) AS exact LIMIT ${cap + 1}`;
}

export const sqliteSearch: SessionSearch = {
  async catchUp(db) {
    await catchUpSearchIndex(db);
  },
  hits(db, text, scope, only) {
    const q = text.trim();
    const contains = async () => (await newestContaining(q, scope, only).execute(db)).rows;
    return collectHits(only ? [contains] : [async () => (await exactly(db, q, scope).execute(db)).rows, contains], scope.cap, false);
  },
  // One bound parameter: the rowids as a JSON array.
  among: (eb, _scope, hits) => eb(sql`s.rowid`, 'in', sql`(SELECT value FROM json_each(${JSON.stringify(hits.keys)}))`),
  page: (list, base, ordered, limit, offset) =>
    ordered(base.where(sql`s.rowid`, 'in', ordered(list).clearSelect().select(sql<number>`s.rowid`.as('k')).limit(limit).offset(offset))).execute(),
};
