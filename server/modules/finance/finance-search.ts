import { sql, type Expression, type ExpressionBuilder, type Kysely } from 'kysely';
import type { Database } from '../../db/schema';
import { slipReferenceKey } from '../../lib/slip-reference';

/**
 * Finance search the way a caller describes a payment: one text matched against the payer's
 * name (contains, any case), the last 4 digits of the Mobile Money number, the session id (whole
 * or its first characters), the invoice ref (contains), the printed slip reference (any case,
 * with or without dashes and spaces, O/0 and I/1 forgiven: lib/slip-reference.ts), and the
 * provider or bank-transfer payment reference.
 *
 * Every part is an index lookup, and the search is the union of the sessions each one finds
 * (`s.rowid IN (… UNION …)` on SQLite, `s.id IN (…)` on PostgreSQL), the merchant only a filter
 * on them (merchantScope), so its cost is that of the sessions found, never of the merchant's
 * sessions (issue 18: the "contains" parts read every one, 3–6 s at a million). A text found in
 * BROAD sessions or more has its page read the other way round (isBroad):
 * - exact parts: session id, phone last 4, references, slip key (migrations 0010, 0011);
 * - the id's first characters (6 or more): a range on the primary key (SQLite), `LIKE 'x%'` on
 *   a text_pattern_ops index (PostgreSQL; migration 0016);
 * - "contains" on payer name and invoice ref: trigram indexes (migration 0016), an FTS5 phrase
 *   on SQLite, ILIKE on PostgreSQL's pg_trgm indexes. A trigram index cannot serve a text
 *   shorter than 3 characters, so a shorter text matches the invoice ref exactly instead (on
 *   the merchant's (merchant_id, invoice_ref) index) and no payer name; the screen says to
 *   type at least 3 characters (MIN_CONTAINS).
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
 * What the search's parts return and the list is matched on: the session's rowid on SQLite (the
 * FTS5 index's own key, and a lookup without an index in between), its id on PostgreSQL (no
 * rowid there).
 */
const key = (pg: boolean, alias: 'h') => (pg ? sql.ref<string>(`${alias}.id`) : sql<string>`${sql.ref(alias)}.rowid`);

/** The sessions whose name or invoice ref (or only invoice ref) contains `q` (3+ characters), through the trigram index. */
function containing(eb: SessionEb, q: string, pg: boolean, only?: 'invoice_ref') {
  if (pg) {
    const pattern = `%${likeEscape(q)}%`;
    const h = eb.selectFrom('checkout_sessions as h').select(key(pg, 'h').as('k'));
    return only ? h.where(sql<boolean>`h.invoice_ref ILIKE ${pattern}`) : h.where(sql<boolean>`h.customer_name ILIKE ${pattern} OR h.invoice_ref ILIKE ${pattern}`);
  }
  const match = only ? `${only} : ${ftsPhrase(q)}` : ftsPhrase(q);
  return sql<{ k: string }>`SELECT rowid AS k FROM checkout_sessions_search WHERE checkout_sessions_search MATCH ${match}`;
}

/** The merchant's sessions of exactly this invoice ref (a text too short for the trigram index). */
const sameRef = (eb: SessionEb, q: string, scope: SearchScope) =>
  eb.selectFrom('checkout_sessions as h').select(key(scope.pg, 'h').as('k')).where('h.merchant_id', '=', scope.merchantId).where('h.invoice_ref', '=', q);

/** The list's rows whose key is among `hits`. */
const among = (eb: SessionEb, pg: boolean, hits: Expression<{ k: string }>) => (pg ? eb('s.id', 'in', hits as never) : eb(sql<number>`s.rowid`, 'in', hits as never));

export function sessionSearch(eb: SessionEb, text: string, scope: SearchScope) {
  const q = text.trim();
  const { pg } = scope;
  const slip = slipReferenceKey(q);
  const parts: Array<Expression<{ k: string }>> = [];
  // `<> ''`: the reference index leaves out attempts still waiting for their provider's (migration 0023).
  const attempts = eb.selectFrom('payment_attempts as a').where((a) => a.or([a.and([a('a.provider_reference', '=', q), a('a.provider_reference', '<>', sql.lit(''))]), a('a.payment_reference', '=', q), ...(/^\d{4}$/.test(q) ? [a('a.phone_last4', '=', q)] : [])]));
  parts.push(pg ? attempts.select('a.session_id as k') : eb.selectFrom('checkout_sessions as h').select(key(pg, 'h').as('k')).where('h.id', 'in', attempts.select('a.session_id')));
  // The printed slip reference as a teller would type it (any case, dashes or not, O/0, I/1).
  if (slip) {
    const slips = eb.selectFrom('cash_slips as c').where('c.reference_key', '=', slip);
    parts.push(pg ? slips.select('c.session_id as k') : eb.selectFrom('checkout_sessions as h').select(key(pg, 'h').as('k')).where('h.id', 'in', slips.select('c.session_id')));
  }
  if (q.length >= 6) {
    const prefix = eb.selectFrom('checkout_sessions as h').select(key(pg, 'h').as('k'));
    // Ids are ASCII: on SQLite (binary collation) every id starting with q sorts in [q, q + U+10FFFF).
    parts.push(pg ? prefix.where(sql<boolean>`h.id LIKE ${`${likeEscape(q)}%`}`) : prefix.where('h.id', '>=', q).where('h.id', '<', `${q}\u{10FFFF}`));
  }
  parts.push(q.length >= MIN_CONTAINS ? containing(eb, q, pg) : sameRef(eb, q, scope));
  let hits = eb.selectFrom('checkout_sessions as h').select(key(pg, 'h').as('k')).where('h.id', '=', q);
  for (const part of parts) hits = hits.union(part);
  return among(eb, pg, hits);
}

/**
 * Texts found in at least this many sessions are "broad" (a common name: "Mensah", "Payer 1").
 * Their page is then read by walking the merchant's sessions in the page's order, each tested
 * against the set the index found (built once), which stops once the page is full: with 5,000+
 * matches that is a few thousand rows at most for a first page (at a million sessions); driven
 * by the matches instead, every one of them would be read and sorted for one page (111,111
 * matches at 200k sessions: 1.4 s against 0.16 s). The count stays driven by the matches.
 */
export const BROAD = 5_000;

/** Whether a "contains" text (3+ characters) is in BROAD sessions or more: the trigram index, read up to BROAD rows. */
export async function isBroad(db: Kysely<Database>, texts: Array<string | undefined>, pg: boolean): Promise<boolean> {
  for (const text of texts) {
    const q = text?.trim() ?? '';
    if (q.length < MIN_CONTAINS) continue;
    const found = pg
      ? sql<{ n: string }>`SELECT count(*) AS n FROM (SELECT 1 FROM checkout_sessions h WHERE h.customer_name ILIKE ${`%${likeEscape(q)}%`} OR h.invoice_ref ILIKE ${`%${likeEscape(q)}%`} LIMIT ${BROAD}) x`
      : sql<{ n: number }>`SELECT count(*) AS n FROM (SELECT rowid FROM checkout_sessions_search WHERE checkout_sessions_search MATCH ${ftsPhrase(q)} LIMIT ${BROAD})`;
    if (Number((await found.execute(db)).rows[0]?.n ?? 0) >= BROAD) return true;
  }
  return false;
}

/** The `invoice_ref` filter: contains (any case) from 3 characters, the exact ref below that. */
export function invoiceRefSearch(eb: SessionEb, text: string, scope: SearchScope) {
  if (text.length < MIN_CONTAINS) return among(eb, scope.pg, sameRef(eb, text, scope));
  const hits = containing(eb, text, scope.pg, 'invoice_ref');
  // SQLite's is raw SQL, which a subquery position does not parenthesise by itself.
  return scope.pg ? among(eb, true, hits) : sql<boolean>`s.rowid IN (${hits})`;
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
