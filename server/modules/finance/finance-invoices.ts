import { boundedTotal } from '../../lib/list-total';
import { sql } from 'kysely';
import type { Db } from '../../db/database';
import type { InvoiceSummariesTable } from '../../db/schema';
import { invalid, notFound } from '../../lib/errors';
import type { InvoiceDetail, InvoiceList, InvoiceSummary, SessionRow } from '../../../shared/schemas/backoffice';
import { invoiceLines } from '../invoices';
import { likeEscape } from '../../db/search';
import { SESSION_SELECTION } from './session-selection';
import { afterCursor, decodeCursor, encodeCursor, pageOf } from '../../http/paging';
import { catchUpInvoiceSummaries } from '../../jobs/invoice-summary-fold';
import type { CheckoutSessionsTable } from '../../db/schema';

/**
 * An invoice is an `invoice_ref` of the merchant with lines or sessions. Rule (docs/backoffice.md):
 * `paid_minor` is what its successful sessions collected; it is remitted (fully paid) once every
 * line is remitted (domain/invoice-allocation.ts covers lines in order), or, with no lines,
 * once a session succeeded. Both views read `invoice_summaries` (migration 0017), which the
 * transactions that write lines and sessions keep (domain/invoice-summary.ts): nothing here
 * reads an invoice's sessions to add them up (the list gave up after 60 s at a
 * million sessions, a 100,000-session invoice's detail took 2.25 s).
 */

/**
 * An invoice's mode (InvoiceSummary.mode): its lines', live when any is live; without lines,
 * live once a live session paid it, else its latest session's.
 */
function invoiceMode(r: InvoiceSummariesTable): 'test' | 'live' {
  const [lines, testLines] = [Number(r.line_count), Number(r.test_line_count)];
  if (lines > testLines) return 'live';
  if (testLines > 0) return 'test';
  if (Number(r.paid_minor) - Number(r.test_paid_minor) > 0 || Number(r.success_count) > Number(r.test_success_count)) return 'live';
  return r.latest_session_id?.startsWith('cs_test_') ? 'test' : 'live';
}

const toInvoice = (r: InvoiceSummariesTable): InvoiceSummary => {
  const mode = invoiceMode(r);
  const [testLines, testBilled, testPaid] = [Number(r.test_line_count), Number(r.test_billed_minor), Number(r.test_paid_minor)];
  const billed = mode === 'test' ? testBilled : Number(r.billed_minor) - testBilled;
  const paid = mode === 'test' ? testPaid : Number(r.paid_minor) - testPaid;
  return {
    invoice_ref: r.invoice_ref,
    mode,
    currency: r.line_currency ?? r.latest_session_currency ?? 'GHS',
    line_count: mode === 'test' ? testLines : Number(r.line_count) - testLines,
    billed_minor: billed,
    paid_minor: paid,
    outstanding_minor: Math.max(0, billed - paid),
    remitted: r.remitted_at !== null,
    remitted_at: r.remitted_at,
    latest_session_status: r.latest_session_status,
    updated_at: r.updated_at,
    // This mode's successes: the other mode's payments are another invoice (invoiceMode).
    ...paymentState(mode === 'test' ? testLines : Number(r.line_count) - testLines, billed, paid, mode === 'test' ? Number(r.test_success_count) : Number(r.success_count) - Number(r.test_success_count)),
  };
};

/**
 * What an invoice's payments amount to, in one word a clerk reads: nothing billed (no lines),
 * not paid, part-paid, paid, or over-paid (by `overpaid_minor`). `has_exception` when its
 * payments do not reconcile (two or more, or one that differs from the billed total: the
 * exceptions list has a work item for it).
 */
function paymentState(lines: number, billed: number, paid: number, successes: number): Pick<InvoiceSummary, 'payment_state' | 'overpaid_minor' | 'has_exception'> {
  const state: InvoiceSummary['payment_state'] = lines === 0 ? 'nothing_billed' : paid === 0 ? 'not_paid' : paid < billed ? 'part_paid' : paid === billed ? 'paid' : 'overpaid';
  return { payment_state: state, overpaid_minor: lines > 0 ? Math.max(0, paid - billed) : 0, has_exception: successes > 1 || (successes === 1 && lines > 0 && paid !== billed) };
}
/** The billed amount and line count of the invoice's mode (toInvoice's): live when it has a live line, else its test lines' (0 without lines). */
const MODE_BILLED = sql<number>`(CASE WHEN line_count > test_line_count THEN billed_minor - test_billed_minor ELSE test_billed_minor END)`;
const MODE_LINES = sql<number>`(CASE WHEN line_count > test_line_count THEN line_count - test_line_count ELSE test_line_count END)`;

type InvoiceSort = 'updated_at' | 'invoice_ref' | 'billed_minor' | 'line_count';

/**
 * One page of the merchant's invoices. Each sort reads its index of `invoice_summaries`
 * forwards or backwards (ties by invoice_ref in the same direction). Deep pages go by `cursor`
 * (any sort): the page starts after the previous page's last (sort value, invoice_ref), so
 * page 25,000 costs what page 1 does. An `offset` still works, skipped in the sort index alone
 * (a subquery of refs) before the page's rows are read: an index walk of what it skips.
 */
export async function listInvoices(
  db: Db,
  merchantId: string,
  f: {
    q?: string | undefined;
    remitted?: boolean | undefined;
    sort?: InvoiceSort;
    dir?: 'asc' | 'desc';
    limit: number;
    offset: number;
    cursor?: string | undefined;
  },
  cap: number,
): Promise<InvoiceList> {
  const sort = f.sort ?? 'updated_at';
  const dir = f.dir === 'asc' ? 'asc' : 'desc';
  await catchUpInvoiceSummaries(db); // read-your-writes: the pending deltas folded first (invoice-summary-fold.ts)
  let base = db.selectFrom('invoice_summaries').where('merchant_id', '=', merchantId);
  if (f.q) base = base.where(sql<boolean>`lower(invoice_ref) LIKE lower(${`%${likeEscape(f.q)}%`}) ESCAPE '\\'`);
  if (f.remitted !== undefined) base = base.where('remitted', '=', f.remitted ? 1 : 0);
  const total = await boundedTotal(db, base.selectAll(), cap);
  const numeric = sort === 'billed_minor' || sort === 'line_count';
  // Billed and line count sort by the invoice's own mode's figures (those it shows), not both modes' sum: an
  // expression, indexed as written here with the merchant and the ref (migration 0043; change both together).
  const key = sort === 'billed_minor' ? MODE_BILLED : sort === 'line_count' ? MODE_LINES : sort;
  let page = base;
  if (f.cursor) {
    if (f.offset > 0) throw invalid('cursor', 'cannot be combined with offset');
    const c = decodeCursor(f.cursor, sort, dir, numeric);
    // The ref is the tie-break (and the key itself when the list is sorted by it): the
    // (merchant_id, sort, invoice_ref) index is ranged on its second column.
    page = page.where((eb) => (sort === 'invoice_ref' ? eb('invoice_ref', dir === 'desc' ? '<' : '>', c.id) : afterCursor(eb, key, 'invoice_ref', dir, c)));
  }
  const ordered = <Q extends { orderBy: (c: InvoiceSort | typeof key, d: 'asc' | 'desc') => Q }>(q: Q): Q =>
    sort === 'invoice_ref' ? q.orderBy('invoice_ref', dir) : q.orderBy(key, dir).orderBy('invoice_ref', dir);
  // Two steps: the page's refs from the sort index alone, then those rows by primary key. As one
  // statement (`invoice_ref IN (subquery)`), SQLite walked the merchant's whole sort index with a
  // Bloom filter on the list: 145–190 ms at 900,000 invoices, against 0.03 ms for the refs.
  const refs = (await ordered(page.select('invoice_ref')).limit(f.limit + 1).offset(f.offset).execute()).map((r) => r.invoice_ref);
  const pageRefs = refs.slice(0, f.limit);
  // No ORDER BY here (with one, SQLite still preferred the sort index to the primary key): the
  // rows are put in the refs' order.
  const found = pageRefs.length === 0 ? [] : await db.selectFrom('invoice_summaries').selectAll().where('merchant_id', '=', merchantId).where('invoice_ref', 'in', pageRefs).execute();
  const byRef = new Map(found.map((r) => [r.invoice_ref, r]));
  const rows = pageRefs.flatMap((ref) => byRef.get(ref) ?? []);
  const last = rows.at(-1);
  const next = refs.length > f.limit && last ? encodeCursor(sort, dir, numeric ? toInvoice(last)[sort as 'billed_minor' | 'line_count'] : String(last[sort]), last.invoice_ref) : null;
  return { invoices: rows.map(toInvoice), ...total, next_cursor: next };
}

type SessionWithMerchant = CheckoutSessionsTable & { merchant_name: string };

export async function invoiceDetail(
  db: Db,
  merchantId: string,
  invoiceRef: string,
  page: { limit: number; cursor?: string | undefined },
  rowsOf: (rows: SessionWithMerchant[]) => Promise<SessionRow[]>,
): Promise<InvoiceDetail> {
  await catchUpInvoiceSummaries(db);
  const summary = await db.selectFrom('invoice_summaries').selectAll().where('merchant_id', '=', merchantId).where('invoice_ref', '=', invoiceRef).executeTakeFirst();
  if (!summary) throw notFound(`invoice ${invoiceRef}`);
  const lines = await invoiceLines(db, { merchantId, mode: null, invoiceRef });
  // The merchant's name is read once, not joined: with the join SQLite walks the (one-row)
  // merchants table first and then sorts every session of the invoice (100,000 for a popular one)
  // instead of reading the newest 51 from (merchant_id, invoice_ref, created_at).
  const merchant = await db.selectFrom('merchants').select('name').where('id', '=', merchantId).executeTakeFirstOrThrow();
  let q = db.selectFrom('checkout_sessions as s').select(SESSION_SELECTION).where('s.merchant_id', '=', merchantId).where('s.invoice_ref', '=', invoiceRef);
  if (page.cursor) {
    const c = decodeCursor(page.cursor, 'created_at', 'desc');
    q = q.where((eb) => afterCursor(eb, 's.created_at', 's.id', 'desc', c));
  }
  const found = (await q.orderBy('s.created_at', 'desc').orderBy('s.id', 'desc').limit(page.limit + 1).execute()).map((r) => ({ ...r, merchant_name: merchant.name }));
  const { page: sessions, next_cursor } = pageOf(found, page.limit, 'created_at', 'desc', (r) => r.created_at);
  return { invoice: toInvoice(summary), lines, sessions: await rowsOf(sessions), sessions_total: Number(summary.session_count), next_cursor };
}
