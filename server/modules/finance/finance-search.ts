import { sql, type ExpressionBuilder, type Kysely } from 'kysely';
import type { Database } from '../../db/schema';
import { slipReferenceKey } from '../../lib/slip-reference';
import { indexWord } from './search-words';
import { newestMatching } from './search-ranges';

/**
 * Finance search the way a caller describes a payment: one text matched against the payer's
 * name (contains, any case), the last 4 digits of the Mobile Money number, the session id (whole
 * or its first characters), the invoice ref (contains), the printed slip reference (any case,
 * with or without dashes and spaces, O/0 and I/1 forgiven: lib/slip-reference.ts), and the
 * provider or bank-transfer payment reference.
 *
 * The search finds its sessions first, once per request (searchHits), and the list's count and
 * page are then read among those sessions by key (`s.rowid IN (json_each(…))` on SQLite,
 * `s.id = ANY(…)` on PostgreSQL), the merchant only a filter on them (merchantScope): the cost is
 * that of the sessions found, never of the merchant's sessions (issue 18: the "contains" parts
 * read every one, 3–6 s at a million). Every part is an index lookup:
 * - exact parts: session id, phone last 4, references, slip key (migrations 0010, 0011);
 * - the id's first characters (6 or more): a range on the primary key (SQLite), `LIKE 'x%'` on
 *   a text_pattern_ops index (PostgreSQL; migration 0016);
 * - "contains" on payer name and invoice ref: trigram indexes (migration 0016), an FTS5 phrase
 *   on SQLite, ILIKE on PostgreSQL's pg_trgm indexes. A trigram index cannot serve a text
 *   shorter than 3 characters, so a shorter text matches the invoice ref exactly instead (on
 *   the merchant's (merchant_id, invoice_ref, created_at) index) and no payer name; the screen
 *   says to type at least 3 characters (MIN_CONTAINS).
 * **The candidates are capped** at the list's total cap (LIST_TOTAL_CAP, 10,000): the newest
 * `cap` sessions the text finds (newest by insertion, the FTS5 rowid, on SQLite; by created_at
 * on PostgreSQL), so a broad text ("Payer 1": 111,111 sessions at a million) costs a bounded
 * page and count instead of counting and sorting every match; the list then says
 * `total_capped: true` ("10,000+"), and its pages (by offset or cursor) go on to the end of the
 * candidates. Narrow the text, or add a date range, to reach older sessions of a broad text.
 * The text is only ever a bound parameter: LIKE's `\ % _` are escaped, and the FTS5 phrase is
 * quoted with its `"` doubled, so no input can change the query's meaning.
 */
export const MIN_CONTAINS = 3;

export const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** One FTS5 phrase: between double quotes every character is literal but `"`, written twice. */
const ftsPhrase = (s: string) => `"${s.replace(/"/g, '""')}"`;

type SessionEb = ExpressionBuilder<Database & { s: Database['checkout_sessions']; m: Database['merchants'] }, 's' | 'm'>;

export interface SearchScope {
  merchantId: string;
  /** The engine (db/engine.ts isPostgres): the contains and prefix parts are said differently. */
  pg: boolean;
  /** At most this many sessions per part (the newest): LIST_TOTAL_CAP. */
  cap: number;
  /** The injected clock's now, in ms (search-words.ts refreshes its sample by it). */
  now: number;
}

/**
 * The list's merchant scope. With a search, the sessions the search finds must drive the query:
 * a planner would otherwise walk the merchant's (merchant_id, …) index — every session of the
 * merchant — and test each one against the search (SQLite has no statistics to know better;
 * PostgreSQL's can be stale or, on small tables, favour it). As `merchant_id || ''` the
 * merchant is a filter on the sessions found, never an index to walk.
 */
export const merchantScope = (searching: boolean) => (searching ? sql<string>`(s.merchant_id || '')` : sql.ref<string>('s.merchant_id'));

/**
 * What the search returns and the list is matched on: the session's rowid on SQLite (the FTS5
 * index's own key, and a lookup without an index in between), its id on PostgreSQL (no rowid
 * there).
 */
type Key = string | number;
const key = (pg: boolean) => (pg ? sql<Key>`h.id` : sql<Key>`h.rowid`);

/** The sessions a search found: at most `cap` per part, `capped` when a part had more. */
export interface SearchHits {
  keys: Key[];
  capped: boolean;
  /** The merchant has more than `cap` sessions of the "contains" (or short ref) part alone. */
  full: boolean;
}

/**
 * The merchant's newest sessions whose name or invoice ref (or only invoice ref) contains `q`
 * (3+ characters, the trigram index), or, shorter, whose invoice ref is `q`: at most cap + 1.
 */
function newestContaining(q: string, scope: SearchScope, word: string | null, only?: 'invoice_ref') {
  const { pg, merchantId, cap } = scope;
  if (q.length < MIN_CONTAINS) {
    return sql<{ k: Key }>`SELECT ${key(pg)} AS k FROM checkout_sessions h WHERE h.merchant_id = ${merchantId} AND h.invoice_ref = ${q} ORDER BY h.created_at DESC LIMIT ${cap + 1}`;
  }
  if (pg) {
    const p = `%${likeEscape(q)}%`;
    // With a rare word (search-words.ts) the index is asked for it alone, and `|| ''` keeps the whole text out of the index condition.
    const w = word === null ? null : `%${likeEscape(word)}%`;
    const has = (col: 'customer_name' | 'invoice_ref') => (w === null ? sql`h.${sql.ref(col)} ILIKE ${p}` : sql`(h.${sql.ref(col)} ILIKE ${w} AND (h.${sql.ref(col)} || '') ILIKE ${p})`);
    const match = only ? has('invoice_ref') : sql`(${has('customer_name')} OR ${has('invoice_ref')})`;
    // The merchant as `|| ''`: a filter on the rows the trigram index found, not a second index to combine.
    return sql<{ k: Key }>`SELECT h.id AS k FROM checkout_sessions h WHERE ${match} AND (h.merchant_id || '') = ${merchantId} ORDER BY h.created_at DESC LIMIT ${cap + 1}`;
  }
  // FTS5 returns its rowids newest (last inserted) first, range by range (search-ranges.ts), and stops at the limit.
  const match = only ? `${only} : ${ftsPhrase(q)}` : ftsPhrase(q);
  return { execute: (db: Kysely<Database>) => newestMatching(db, match, merchantId, cap + 1) };
}

/** The exact parts of a `q` search (references, phone, slip, id and its first characters): at most cap + 1. */
function exactly(db: Kysely<Database>, q: string, scope: SearchScope) {
  const { pg, cap } = scope;
  const slip = slipReferenceKey(q);
  const sessions = () => db.selectFrom('checkout_sessions as h').select(key(pg).as('k'));
  // `<> ''`: the reference index leaves out attempts still waiting for their provider's (migration 0023).
  const attempts = db.selectFrom('payment_attempts as a').where((a) => a.or([a.and([a('a.provider_reference', '=', q), a('a.provider_reference', '<>', sql.lit(''))]), a('a.payment_reference', '=', q), ...(/^\d{4}$/.test(q) ? [a('a.phone_last4', '=', q)] : [])]));
  let hits = sessions().where('h.id', '=', q);
  hits = hits.union(pg ? attempts.select(sql<Key>`a.session_id`.as('k')) : sessions().where('h.id', 'in', attempts.select('a.session_id')));
  // The printed slip reference as a teller would type it (any case, dashes or not, O/0, I/1).
  if (slip) {
    const slips = db.selectFrom('cash_slips as c').where('c.reference_key', '=', slip);
    hits = hits.union(pg ? slips.select(sql<Key>`c.session_id`.as('k')) : sessions().where('h.id', 'in', slips.select('c.session_id')));
  }
  if (q.length >= 6) {
    // Ids are ASCII: on SQLite (binary collation) every id starting with q sorts in [q, q + U+10FFFF).
    hits = hits.union(pg ? sessions().where(sql<boolean>`h.id LIKE ${`${likeEscape(q)}%`}`) : sessions().where('h.id', '>=', q).where('h.id', '<', `${q}\u{10FFFF}`));
  }
  return sql<{ k: Key }>`SELECT k FROM (${hits}) AS exact LIMIT ${cap + 1}`;
}

/**
 * The sessions a text finds, read once per request: for `q` its exact parts and "contains"
 * parts, for the `invoice_ref` filter (`only`) the ref contains the text (3+ characters) or is
 * it (shorter). Each part at most `cap` (the newest for "contains"), `capped` if it had more.
 */
export async function searchHits(db: Kysely<Database>, text: string, scope: SearchScope, only?: 'invoice_ref'): Promise<SearchHits> {
  const q = text.trim();
  const word = scope.pg && q.length >= MIN_CONTAINS ? await indexWord(db, q, scope.now) : null;
  const parts = only ? [newestContaining(q, scope, word, only)] : [exactly(db, q, scope), newestContaining(q, scope, word)];
  const keys = new Set<Key>();
  let [capped, full] = [false, false];
  for (const [i, part] of parts.entries()) {
    const rows = (await part.execute(db)).rows;
    if (rows.length > scope.cap) [capped, full] = [true, full || i === parts.length - 1];
    for (const r of rows.slice(0, scope.cap)) keys.add(r.k);
  }
  return { keys: [...keys], capped, full };
}

/** The list's rows among the sessions found: one bound parameter (a JSON array on SQLite, a text[] on PostgreSQL). */
export const amongHits = (eb: SessionEb, pg: boolean, hits: SearchHits) =>
  pg ? eb(sql`s.id`, '=', sql`ANY(${hits.keys.map(String)}::text[])`) : eb(sql`s.rowid`, 'in', sql`(SELECT value FROM json_each(${JSON.stringify(hits.keys)}))`);

/**
 * An amount matches the invoice (base) amount or what was actually collected: the union of the
 * merchant's sessions of that amount ((merchant_id, amount_minor), 0011) and the sessions of the
 * succeeded attempts and approved deposits of that amount (their partial indexes).
 */
export function sessionAmount(eb: SessionEb, amountMinor: number, scope: SearchScope) {
  return eb(
    's.id',
    'in',
    eb
      .selectFrom('checkout_sessions as h')
      .select('h.id as id')
      .where('h.merchant_id', '=', scope.merchantId)
      .where('h.amount_minor', '=', amountMinor)
      .union(eb.selectFrom('payment_attempts as a').select('a.session_id as id').where('a.amount_charged_minor', '=', amountMinor).where('a.status', '=', 'succeeded'))
      .union(eb.selectFrom('cash_deposits as d').select('d.session_id as id').where('d.amount_minor', '=', amountMinor).where('d.status', '=', 'approved')),
  );
}
