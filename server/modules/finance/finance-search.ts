import { sql, type ExpressionBuilder, type Kysely, type SqlBool } from 'kysely';
import type { Database } from '../../db/schema';
import { slipReferenceKey } from '../../lib/slip-reference';
import { indexPlan } from './search-words';
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
 * that of the sessions found, never of the merchant's sessions (the "contains" parts
 * read every one, 3–6 s at a million). Every part is an index lookup:
 * - exact parts: session id, phone last 4, references, slip key (migrations 0010, 0011);
 * - the id's first characters (6 or more): a range on the primary key (SQLite), `LIKE 'x%'` on
 *   a text_pattern_ops index (PostgreSQL; migration 0016);
 * - "contains" on payer name and invoice ref: trigram indexes (migration 0016), an FTS5 phrase
 *   on SQLite, ILIKE on PostgreSQL's pg_trgm indexes. A trigram index cannot serve a text
 *   shorter than 3 characters, so a shorter text matches the invoice ref exactly instead (on
 *   the merchant's (merchant_id, invoice_ref, created_at) index) and no payer name; the screen
 *   says to type at least 3 characters (MIN_CONTAINS). So is a text without two letters or
 *   digits in a row (`!!!`: no trigram, searchable()). On PostgreSQL the trigram indexes also
 *   hold the merchant (`merchant_id || ''`, 0035): a search reads its merchant's entries only,
 *   however many sessions other merchants have that share its trigrams.
 * **The candidates are capped** at the list's total cap (LIST_TOTAL_CAP, 10,000): the newest
 * `cap` sessions the text finds (newest by insertion, the FTS5 rowid, on SQLite; by created_at
 * on PostgreSQL), so a broad text ("Payer 1": 111,111 sessions at a million) costs a bounded
 * page and count instead of counting and sorting every match; the list then says
 * `total_capped: true` ("10,000+"), and its pages (by offset or cursor) go on to the end of the
 * candidates. Narrow the text, or add a date range, to reach older sessions of a broad text.
 * On PostgreSQL a text the sample says is broad is read day by day, newest first, and stops at
 * the cap (newestByDay, migration 0026), and the page of a capped text is read over the span of
 * its sessions' `created_at` (amongHits), not by 10,000 primary-key lookups.
 * The text is only ever a bound parameter: LIKE's `\ % _` are escaped, and the FTS5 phrase is
 * quoted with its `"` doubled, so no input can change the query's meaning.
 */
const MIN_CONTAINS = 3;

/**
 * Whether a text can be looked up on a trigram index: two letters or digits in a row (a word
 * and its edge make a trigram). One without (`!!!`, `a-b`) has no trigram of its own, so the
 * index would be read whole; it is
 * matched like a short text instead (the exact parts, and the invoice ref equal to it), on both
 * engines alike.
 */
export const searchable = (q: string): boolean => q.length >= MIN_CONTAINS && /[\p{L}\p{N}]{2}/u.test(q);

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
  /** PostgreSQL: read a 3+ character text day by day (true) or from the whole index (false); unset, the sample decides. */
  byDay?: boolean;
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

/**
 * PostgreSQL, a capped broad text read day by day: its newest `cap` sessions, said without
 * listing them: every session of the merchant matching the text whose (created_at, id) is at or
 * after `from` (the cap-th newest, ties broken by id as every list) and no newer than `newest`.
 * The walk returns only this (windowByDay), and the list reads its page among those sessions
 * by the merchant's (merchant_id, created_at, id) index, rechecking the text on each row it
 * walks (amongHits): 10,000 ids no longer travel to the server and back.
 */
interface HitWindow {
  from: { created_at: string; id: string };
  newest: string;
  /** The text as searched, and the column it was searched in (`only`). */
  q: string;
  only?: 'invoice_ref';
}

/** The sessions a search found: at most `cap` per part, `capped` when a part had more. */
export interface SearchHits {
  /** The sessions found, but for those of `window`. */
  keys: Key[];
  /** The "contains" part, when it was capped on a day-by-day read (PostgreSQL), else null. */
  window: HitWindow | null;
  capped: boolean;
  /** The merchant has more than `cap` sessions of the "contains" (or short ref) part alone. */
  full: boolean;
  /** PostgreSQL: the oldest and newest `created_at` of the sessions found, the window's too (null when none, and on SQLite). */
  span: { oldest: string; newest: string } | null;
}

/** One session a part found: its key, and on PostgreSQL its `created_at`. */
type Hit = { k: Key; created_at?: string };

/**
 * A text the sample says is in more than this many caps' worth of sessions is read day by day,
 * newest first (newestByDay); a narrower one from the whole trigram index at once, sorted.
 */
const BY_DAY_ABOVE_CAPS = 2;

/** PostgreSQL: the trigram condition on `h` (ILIKE, or the rare word's and then the whole text's). */
function pgMatch(q: string, word: string | null, only?: 'invoice_ref') {
  const p = `%${likeEscape(q)}%`;
  // With a rare word (search-words.ts) the index is asked for it alone, and `|| ''` keeps the whole text out of the index condition.
  const w = word === null ? null : `%${likeEscape(word)}%`;
  const has = (col: 'customer_name' | 'invoice_ref') => (w === null ? sql`h.${sql.ref(col)} ILIKE ${p}` : sql`(h.${sql.ref(col)} ILIKE ${w} AND (h.${sql.ref(col)} || '') ILIKE ${p})`);
  return sql<boolean>`${only ? has('invoice_ref') : sql`(${has('customer_name')} OR ${has('invoice_ref')})`}`;
}

/**
 * The merchant's newest sessions whose name or invoice ref (or only invoice ref) contains `q`
 * (3+ characters, the trigram index), or, shorter, whose invoice ref is `q`: at most cap + 1.
 */
function newestContaining(q: string, scope: SearchScope, word: string | null, only?: 'invoice_ref') {
  const { pg, merchantId, cap } = scope;
  if (!searchable(q)) {
    return sql<Hit>`SELECT ${key(pg)} AS k${pg ? sql`, h.created_at` : sql``} FROM checkout_sessions h WHERE h.merchant_id = ${merchantId} AND h.invoice_ref = ${q} ORDER BY h.created_at DESC LIMIT ${cap + 1}`;
  }
  // The merchant as `|| ''`: the trigram indexes hold that expression beside the trigrams (0035), so the scan reads only
  // the merchant's entries, and the merchant's own (merchant_id, …) indexes cannot be chosen to walk every session of it.
  if (pg) return sql<Hit>`SELECT h.id AS k, h.created_at FROM checkout_sessions h WHERE ${pgMatch(q, word, only)} AND (h.merchant_id || '') = ${merchantId} ORDER BY h.created_at DESC, h.id DESC LIMIT ${cap + 1}`;
  // FTS5 returns its rowids newest (last inserted) first, range by range (search-ranges.ts), and stops at the limit.
  const match = only ? `${only} : ${ftsPhrase(q)}` : ftsPhrase(q);
  return { execute: (db: Kysely<Database>) => newestMatching(db, match, merchantId, cap + 1) };
}

/** The UTC months ('YYYY-MM') from `newest`'s back to `oldest`'s (ISO times), newest first. */
export function monthsBetween(oldest: string, newest: string): string[] {
  const out: string[] = [];
  if (!/^\d{4}-\d{2}/.test(oldest) || !/^\d{4}-\d{2}/.test(newest)) return out;
  let [y, m] = [Number(newest.slice(0, 4)), Number(newest.slice(5, 7))];
  const end = oldest.slice(0, 7);
  for (;;) {
    const month = `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}`;
    if (month < end || !(y > 0)) return out;
    out.push(month);
    [y, m] = m === 1 ? [y - 1, 12] : [y, m - 1];
  }
}

/**
 * PostgreSQL, a broad text: its newest cap + 1 sessions read month by month and day by day, newest
 * first, from the trigram indexes that also hold the UTC month and day of creation (0026), each
 * day's matches sorted by time: a month without a match costs one probe of its index entries, a
 * day one more, and the walk stops at the LIMIT instead of reading and sorting every match
 * (111,111 for "Payer 1" at a million). The rows come in the order the nested loop makes them:
 * month (newest first), day (the month's last down to its 1st, within the merchant's span: a day
 * that does not exist, or before its first or after its last session, is not probed), then time
 * (and id). `created_at` comes back too, so the caller can check that order.
 */
function newestByDay(q: string, scope: SearchScope, word: string | null, span: { oldest: string; newest: string }, only?: 'invoice_ref') {
  const match = pgMatch(q, word, only);
  const merchant = sql`(h.merchant_id || '') = ${scope.merchantId}`;
  const [first, last] = [span.oldest.slice(0, 10), span.newest.slice(0, 10)];
  // `OFFSET 0` keeps each day list a subquery of its month (not flattened into a join the planner may reorder).
  return sql<{ k: Key; created_at: string }>`SELECT k.id AS k, k.created_at FROM unnest(${monthsBetween(span.oldest, span.newest)}::text[]) AS mo(month)
    CROSS JOIN LATERAL (
      SELECT ds.day FROM (SELECT mo.month || '-' || lpad(x::text, 2, '0') AS day FROM generate_series(31, 1, -1) AS x) AS ds
      WHERE ds.day <= ${last} AND ds.day >= ${first} AND ds.day <= to_char((mo.month || '-01')::date + interval '1 month' - interval '1 day', 'YYYY-MM-DD')
        AND EXISTS (SELECT 1 FROM checkout_sessions h WHERE substr(h.created_at, 1, 7) = mo.month AND ${match} AND ${merchant})
      OFFSET 0) AS d
    CROSS JOIN LATERAL (
      SELECT h.id, h.created_at FROM checkout_sessions h WHERE substr(h.created_at, 1, 10) = d.day AND ${match} AND ${merchant}
      ORDER BY h.created_at COLLATE "C" DESC, h.id COLLATE "C" DESC) AS k
    LIMIT ${scope.cap + 1}`;
}

/**
 * The walk reads a day on the merchant's index after a day with this many matches, half its
 * sessions or more (0028): a day of 2,740 matches cost 6 ms from the trigram index for "Payer 1"
 * (3.7 for "payer"), 3.5 read in place, measured at a million; since 0033 the index carries the
 * lower-cased name and ref, so such a day is read from the index alone (1.1 ms).
 */
export const DENSE_DAY_FROM = 64;

/**
 * The day walk summed up in the database (paydesk_search_window, migration 0028): the same months
 * and days as newestByDay, newest first, but each day's matches only counted, and the day that
 * holds the cap-th session read backward on the merchant's (merchant_id, created_at, id) index
 * to it; after a dense day (DENSE_DAY_FROM), days are read on that index, not the trigram index. How many it found (at most one day past the cap), the newest `created_at`, and the
 * cap-th session's (created_at, id), where the window starts.
 */
function windowByDay(q: string, scope: SearchScope, word: string | null, span: { oldest: string; newest: string }, only?: 'invoice_ref') {
  const p = `%${likeEscape(q)}%`;
  const w = word === null ? p : `%${likeEscape(word)}%`;
  const months = monthsBetween(span.oldest, span.newest);
  return sql<{ n: number; newest: string | null; at: string | null; id: string | null }>`SELECT f.n, f.newest, f.at, f.at_id AS id
    FROM paydesk_search_window(${scope.merchantId}, ${w}, ${p}, ${only === 'invoice_ref'}, ${span.oldest.slice(0, 10)}, ${span.newest.slice(0, 10)}, ${months}::text[], ${scope.cap}, ${DENSE_DAY_FROM}) AS f`;
}

/** The merchant's oldest and newest creation times: one entry at each end of its (merchant_id, created_at) index. */
async function createdSpan(db: Kysely<Database>, merchantId: string): Promise<{ oldest: string; newest: string } | null> {
  const end = (dir: 'asc' | 'desc') =>
    sql`(SELECT h.created_at FROM checkout_sessions h WHERE h.merchant_id = ${merchantId} AND h.created_at >= '' ORDER BY h.created_at ${sql.raw(dir)} LIMIT 1)`;
  const r = (await sql<{ oldest: string | null; newest: string | null }>`SELECT ${end('asc')} AS oldest, ${end('desc')} AS newest`.execute(db)).rows[0];
  return r?.oldest && r.newest ? { oldest: r.oldest, newest: r.newest } : null;
}

/** Each row older than the one before, by (created_at, id): the order the day walk must make. */
const newestFirst = (rows: Array<{ k: Key; created_at: string }>) =>
  rows.every((r, i) => i === 0 || r.created_at < rows[i - 1]!.created_at || (r.created_at === rows[i - 1]!.created_at && String(r.k) < String(rows[i - 1]!.k)));

/**
 * The newest cap + 1 sessions of a 3+ character text on PostgreSQL (newest by created_at, then
 * id): day by day for a broad text (or when `scope.byDay` says so), else from the whole index at
 * once. A capped day walk answers its window (HitWindow) instead of its rows. The walk's order is
 * checked (each row older than the one before); should a plan ever break it, the whole-index
 * query answers instead, so the candidates are the same either way.
 */
async function pgContaining(db: Kysely<Database>, q: string, scope: SearchScope, only?: 'invoice_ref'): Promise<Hit[] | HitWindow> {
  const { word, estimate } = await indexPlan(db, q, scope.now);
  if (scope.byDay ?? estimate > BY_DAY_ABOVE_CAPS * scope.cap) {
    const span = await createdSpan(db, scope.merchantId);
    if (!span) return [];
    const months = monthsBetween(span.oldest, span.newest);
    const sum = months.length > 0 ? (await windowByDay(q, scope, word, span, only).execute(db)).rows[0] : undefined;
    if (sum && sum.n === 0) return [];
    if (sum && sum.n > scope.cap && sum.at !== null && sum.id !== null && sum.newest !== null) {
      return { from: { created_at: sum.at, id: sum.id }, newest: sum.newest, q, ...(only ? { only } : {}) };
    }
    // Not capped after all (the sample overestimated): the rows themselves, from the same walk.
    const rows = sum ? (await newestByDay(q, scope, word, span, only).execute(db)).rows : [];
    if (sum && rows.length <= scope.cap && newestFirst(rows)) return rows;
  }
  return (await newestContaining(q, scope, word, only).execute(db)).rows;
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
  // PostgreSQL: with each session's created_at, the span the list then reads (amongHits).
  if (pg) return sql<Hit>`SELECT e.k, s.created_at FROM (${hits}) AS e JOIN checkout_sessions s ON s.id = e.k LIMIT ${cap + 1}`;
  return sql<Hit>`SELECT k FROM (${hits}) AS exact LIMIT ${cap + 1}`;
}

/**
 * The sessions a text finds, read once per request: for `q` its exact parts and "contains"
 * parts, for the `invoice_ref` filter (`only`) the ref contains the text (3+ characters) or is
 * it (shorter). Each part at most `cap` (the newest for "contains"), `capped` if it had more.
 */
export async function searchHits(db: Kysely<Database>, text: string, scope: SearchScope, only?: 'invoice_ref'): Promise<SearchHits> {
  const q = text.trim();
  const contains = async () => (scope.pg && searchable(q) ? pgContaining(db, q, scope, only) : (await newestContaining(q, scope, null, only).execute(db)).rows);
  const parts = only ? [contains] : [async () => (await exactly(db, q, scope).execute(db)).rows, contains];
  const keys = new Set<Key>();
  let [capped, full] = [false, false];
  let oldest: string | null = null;
  let newest: string | null = null;
  let window: HitWindow | null = null;
  const within = (at: string | undefined) => {
    if (at === undefined) return;
    if (oldest === null || at < oldest) oldest = at;
    if (newest === null || at > newest) newest = at;
  };
  for (const [i, part] of parts.entries()) {
    const found = await part();
    const last = i === parts.length - 1;
    if (!Array.isArray(found)) {
      // A window: cap sessions, from its start to its newest (the contains part, always capped).
      [window, capped, full] = [found, true, full || last];
      within(found.from.created_at);
      within(found.newest);
      continue;
    }
    if (found.length > scope.cap) [capped, full] = [true, full || last];
    for (const h of found.slice(0, scope.cap)) {
      keys.add(h.k);
      within(h.created_at);
    }
  }
  return { keys: [...keys], window, capped, full, span: scope.pg && oldest !== null && newest !== null ? { oldest, newest } : null };
}

/**
 * The list's rows among the sessions found: one bound parameter (a JSON array on SQLite, a
 * text[] on PostgreSQL). On PostgreSQL, when a text was capped, also the merchant and the
 * span of `created_at` of the sessions found, for a list by time: with a broad text's 10,000 ids the planner priced
 * 10,000 primary-key lookups above a parallel scan of the whole table (400 ms at a million),
 * while the merchant's (merchant_id, created_at, id) index (0026) over that span holds just
 * those sessions when they are the newest matches (or close), and is walked backward in the
 * page's own order, stopping at its LIMIT (5.6 ms). The planner picks between the two by the
 * span's size; every condition only restates what the ids already say.
 * A window (a capped day walk, HitWindow) is its sessions' condition itself: within the window's
 * (created_at, id) bounds and the text checked again on each row the index walk reads (with
 * `|| ''`, so never a trigram index), which the day walk found to be exactly its `cap` sessions.
 */
export const amongHits = (eb: SessionEb, scope: SearchScope, hits: SearchHits, byTime: boolean) => {
  if (!scope.pg) return eb(sql`s.rowid`, 'in', sql`(SELECT value FROM json_each(${JSON.stringify(hits.keys)}))`);
  const ids = eb(sql`s.id`, '=', sql`ANY(${hits.keys.map(String)}::text[])`);
  const { span, window: w } = hits;
  const spanned = (found: ReturnType<SessionEb['and']> | typeof ids) =>
    span ? eb.and([found, eb('s.merchant_id', '=', scope.merchantId), eb('s.created_at', '>=', span.oldest), eb('s.created_at', '<=', span.newest)]) : found;
  if (w) {
    const p = `%${likeEscape(w.q)}%`;
    const has = (col: 'customer_name' | 'invoice_ref') => sql<SqlBool>`(s.${sql.ref(col)} || '') ILIKE ${p}`;
    const text = w.only ? has('invoice_ref') : sql<SqlBool>`(${has('customer_name')} OR ${has('invoice_ref')})`;
    const at = w.from.created_at;
    const inWindow = eb.and([sql<SqlBool>`(s.created_at > ${at} OR (s.created_at = ${at} AND s.id >= ${w.from.id}))`, eb('s.created_at', '<=', w.newest), text]);
    return spanned(hits.keys.length > 0 ? eb.or([ids, inWindow]) : inWindow);
  }
  // Only for a capped text (thousands of ids, the newest matches of a broad text, so a span of recent time) listed
  // by time (`byTime`: the index's own order; ordered by amount, the merchant's amount index would be walked instead):
  // a few ids keep to the primary key, and otherwise the merchant stays out of the index conditions (merchantScope).
  return hits.capped && byTime ? spanned(ids) : ids;
};

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
