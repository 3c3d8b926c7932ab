import { sql } from 'kysely';
import type { Hit, HitWindow, Key, SearchHits, SearchScope, SessionEb } from './types';

/**
 * Finance search the way a caller describes a payment: one text matched against the payer's
 * name (contains, any case), the last 4 digits of the Mobile Money number, the session id (whole
 * or its first characters), the invoice ref (contains), the printed slip reference (any case,
 * with or without dashes and spaces, O/0 and I/1 forgiven: lib/slip-reference.ts), and the
 * provider or bank-transfer payment reference.
 *
 * The search finds its sessions first, once per request (SessionSearch `hits`), and the list's
 * count and page are then read among those sessions by key (`s.rowid IN (json_each(…))` on SQLite,
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
 * its sessions' `created_at` (`among`), not by 10,000 primary-key lookups.
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

/**
 * The list's merchant scope. With a search, the sessions the search finds must drive the query:
 * a planner would otherwise walk the merchant's (merchant_id, …) index — every session of the
 * merchant — and test each one against the search (SQLite has no statistics to know better;
 * PostgreSQL's can be stale or, on small tables, favour it). As `merchant_id || ''` the
 * merchant is a filter on the sessions found, never an index to walk.
 */
export const merchantScope = (searching: boolean) => (searching ? sql<string>`(s.merchant_id || '')` : sql.ref<string>('s.merchant_id'));

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
 * The hits of a search's parts, run in order: at most `cap` of each (a part returns up to cap + 1,
 * or a window), `capped` when one had more, `full` when the last (the "contains" part) did.
 * `spans`: also the oldest and newest `created_at` of the sessions found (the parts return it).
 */
export async function collectHits(parts: ReadonlyArray<() => Promise<Hit[] | HitWindow>>, cap: number, spans: boolean): Promise<SearchHits> {
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
    if (found.length > cap) [capped, full] = [true, full || last];
    for (const h of found.slice(0, cap)) {
      keys.add(h.k);
      within(h.created_at);
    }
  }
  return { keys: [...keys], window, capped, full, span: spans && oldest !== null && newest !== null ? { oldest, newest } : null };
}


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
