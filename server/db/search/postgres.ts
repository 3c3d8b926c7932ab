import { sql, type Expression, type Kysely, type SqlBool } from 'kysely';
import type { Database } from '../schema';
import { slipReferenceKey } from '../../lib/slip-reference';
import { collectHits, likeEscape, monthsBetween, searchable } from './common';
import { indexPlan } from './postgres-words';
import type { Hit, HitWindow, Key, SearchHits, SearchScope, SessionEb, SessionSearch } from './types';

/**
 * The session search on PostgreSQL: "contains" is ILIKE on pg_trgm indexes that also hold the
 * merchant (`merchant_id || ''`, 0035), newest by created_at; a text the sample says is broad
 * (postgres-words.ts) is read day by day, newest first, and stops at the cap (newestByDay,
 * migration 0026), and the page of a capped text is read over the span of its sessions'
 * `created_at` (among), not by 10,000 primary-key lookups. The sessions found are keyed by id.
 */

const key = sql<Key>`h.id`;

/**
 * A text the sample says is in more than this many caps' worth of sessions is read day by day,
 * newest first (newestByDay); a narrower one from the whole trigram index at once, sorted.
 */
const BY_DAY_ABOVE_CAPS = 2;

/** The trigram condition on `h` (ILIKE, or the rare word's and then the whole text's). */
function pgMatch(q: string, word: string | null, only?: 'invoice_ref') {
  const p = `%${likeEscape(q)}%`;
  // With a rare word (postgres-words.ts) the index is asked for it alone, and `|| ''` keeps the whole text out of the index condition.
  const w = word === null ? null : `%${likeEscape(word)}%`;
  const has = (col: 'customer_name' | 'invoice_ref') => (w === null ? sql`h.${sql.ref(col)} ILIKE ${p}` : sql`(h.${sql.ref(col)} ILIKE ${w} AND (h.${sql.ref(col)} || '') ILIKE ${p})`);
  return sql<boolean>`${only ? has('invoice_ref') : sql`(${has('customer_name')} OR ${has('invoice_ref')})`}`;
}

/**
 * The merchant's newest sessions whose name or invoice ref (or only invoice ref) contains `q`
 * (3+ characters, the trigram index), or, shorter, whose invoice ref is `q`: at most cap + 1.
 */
function newestContaining(q: string, scope: SearchScope, word: string | null, only?: 'invoice_ref') {
  const { merchantId, cap } = scope;
  if (!searchable(q)) {
    return sql<Hit>`SELECT ${key} AS k, h.created_at FROM checkout_sessions h WHERE h.merchant_id = ${merchantId} AND h.invoice_ref = ${q} ORDER BY h.created_at DESC LIMIT ${cap + 1}`;
  }
  // The merchant as `|| ''`: the trigram indexes hold that expression beside the trigrams (0035), so the scan reads only
  // the merchant's entries, and the merchant's own (merchant_id, …) indexes cannot be chosen to walk every session of it.
  return sql<Hit>`SELECT h.id AS k, h.created_at FROM checkout_sessions h WHERE ${pgMatch(q, word, only)} AND (h.merchant_id || '') = ${merchantId} ORDER BY h.created_at DESC, h.id DESC LIMIT ${cap + 1}`;
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
  const p = `%${likeEscape(q)}%`;
  const w = word === null ? p : `%${likeEscape(word)}%`;
  // `OFFSET 0` keeps each day list a subquery of its month (not flattened into a join the planner may reorder).
  // The month probe is a function planned without sequential scans (0045): as an EXISTS here, the planner priced a scan
  // that stops at the first match below the index probe, and in a month without one it read the whole table.
  return sql<{ k: Key; created_at: string }>`SELECT k.id AS k, k.created_at FROM unnest(${monthsBetween(span.oldest, span.newest)}::text[]) AS mo(month)
    CROSS JOIN LATERAL (
      SELECT ds.day FROM (SELECT mo.month || '-' || lpad(x::text, 2, '0') AS day FROM generate_series(31, 1, -1) AS x) AS ds
      WHERE ds.day <= ${last} AND ds.day >= ${first} AND ds.day <= to_char((mo.month || '-01')::date + interval '1 month' - interval '1 day', 'YYYY-MM-DD')
        AND paydesk_search_month_has(${scope.merchantId}, ${w}, ${p}, ${only === 'invoice_ref'}, mo.month)
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
  const { cap } = scope;
  const slip = slipReferenceKey(q);
  const sessions = () => db.selectFrom('checkout_sessions as h').select(key.as('k'));
  // `<> ''`: the reference index leaves out attempts still waiting for their provider's (migration 0023).
  const attempts = db.selectFrom('payment_attempts as a').where((a) => a.or([a.and([a('a.provider_reference', '=', q), a('a.provider_reference', '<>', sql.lit(''))]), a('a.payment_reference', '=', q), ...(/^\d{4}$/.test(q) ? [a('a.phone_last4', '=', q)] : [])]));
  let hits = sessions().where('h.id', '=', q);
  hits = hits.union(attempts.select(sql<Key>`a.session_id`.as('k')));
  // The printed slip reference as a teller would type it (any case, dashes or not, O/0, I/1).
  if (slip) {
    const slips = db.selectFrom('cash_slips as c').where('c.reference_key', '=', slip);
    hits = hits.union(slips.select(sql<Key>`c.session_id`.as('k')));
  }
  if (q.length >= 6) {
    // On the id's text_pattern_ops index (migration 0016).
    hits = hits.union(sessions().where(sql<boolean>`h.id LIKE ${`${likeEscape(q)}%`}`));
  }
  // With each session's created_at, the span the list then reads (among).
  return sql<Hit>`SELECT e.k, s.created_at FROM (${hits}) AS e JOIN checkout_sessions s ON s.id = e.k LIMIT ${cap + 1}`;
}

/**
 * The list's rows among the sessions found: one bound parameter (a text[]), and when a text was
 * capped, also the merchant and the span of `created_at` of the sessions found, for a list by time: with a broad text's 10,000 ids the planner priced
 * 10,000 primary-key lookups above a parallel scan of the whole table (400 ms at a million),
 * while the merchant's (merchant_id, created_at, id) index (0026) over that span holds just
 * those sessions when they are the newest matches (or close), and is walked backward in the
 * page's own order, stopping at its LIMIT (5.6 ms). The planner picks between the two by the
 * span's size; every condition only restates what the ids already say.
 * A window (a capped day walk, HitWindow) is its sessions' condition itself: within the window's
 * (created_at, id) bounds and the text checked again on each row the index walk reads (with
 * `|| ''`, so never a trigram index), which the day walk found to be exactly its `cap` sessions.
 */
function among(eb: SessionEb, scope: SearchScope, hits: SearchHits, byTime: boolean): Expression<SqlBool> {
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
}

export const postgresSearch: SessionSearch = {
  // The pg_trgm indexes are part of the table: nothing waits to be indexed.
  catchUp: async () => undefined,
  hits(db, text, scope, only) {
    const q = text.trim();
    const contains = async () => (searchable(q) ? pgContaining(db, q, scope, only) : (await newestContaining(q, scope, null, only).execute(db)).rows);
    return collectHits(only ? [contains] : [async () => (await exactly(db, q, scope).execute(db)).rows, contains], scope.cap, true);
  },
  among,
  page: (list, _base, ordered, limit, offset) => ordered(list).limit(limit).offset(offset).execute(),
};
