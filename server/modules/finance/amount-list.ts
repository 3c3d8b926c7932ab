import type { Db } from '../../db/database';
import { invalid } from '../../lib/errors';
import { boundedTotal, type ListTotal } from '../../lib/list-total';
import { afterCursor, decodeCursor } from '../../http/paging';

/**
 * The merchant's sessions of one amount (the invoice amount, or what a succeeded attempt or an
 * approved deposit collected: server/db/search/ sessionAmount), when the amount is the list's
 * only filter and it is listed by time: how finance looks a payment up by its amount.
 *
 * The general list reads every session of the amount in full to count them and again to sort
 * them (2,000 sessions of GHS 250.00 at a million: two reads of 2,000 rows by primary key,
 * ~10,000 buffers, 40 ms warm and 75-100 ms on a backend that had not touched those pages, on
 * PostgreSQL). Here the amount's sessions are found as (id, created_at) pairs only: on
 * PostgreSQL an index-only read of (merchant_id, amount_minor, created_at, id) (migration 0030),
 * on SQLite its (merchant_id, amount_minor) index and the rowid; the count and the page's ids
 * are read among those pairs, ordered and compared by the database as the general list does
 * (same collation, same tie-break by id), and only the page's own rows are read in full.
 * Answers are the general list's: test/integration/finance-amount-list.test.ts compares them.
 */
export interface AmountPage extends ListTotal {
  /** The page's ids in the list's order, one more than `limit` when there is a next page. */
  ids: string[];
}

/** The (id, created_at) of every session of the merchant with this amount, as one derived table. */
function amountPairs(db: Db, merchantId: string, amount: number) {
  const merchant = db.selectFrom('checkout_sessions as h').select(['h.id', 'h.created_at']).where('h.merchant_id', '=', merchantId).where('h.amount_minor', '=', amount);
  const attempts = db
    .selectFrom('payment_attempts as a')
    .innerJoin('checkout_sessions as h', 'h.id', 'a.session_id')
    .select(['h.id', 'h.created_at'])
    .where('a.amount_charged_minor', '=', amount)
    .where('a.status', '=', 'succeeded')
    .where('h.merchant_id', '=', merchantId);
  const deposits = db
    .selectFrom('cash_deposits as d')
    .innerJoin('checkout_sessions as h', 'h.id', 'd.session_id')
    .select(['h.id', 'h.created_at'])
    .where('d.amount_minor', '=', amount)
    .where('d.status', '=', 'approved')
    .where('h.merchant_id', '=', merchantId);
  return merchant.union(attempts).union(deposits);
}

export async function amountPage(
  db: Db,
  merchantId: string,
  amount: number,
  page: { dir: 'asc' | 'desc'; limit: number; offset: number; cursor?: string | undefined },
  cap: number,
): Promise<AmountPage> {
  const pairs = () => db.selectFrom(amountPairs(db, merchantId, amount).as('u'));
  const total = await boundedTotal(db, pairs().select('u.id'), cap);
  let q = pairs().select('u.id');
  if (page.cursor) {
    if (page.offset > 0) throw invalid('cursor', 'cannot be combined with offset');
    const c = decodeCursor(page.cursor, 'created_at', page.dir);
    q = q.where((eb) => afterCursor(eb, 'u.created_at', 'u.id', page.dir, c));
  }
  const rows = await q.orderBy('u.created_at', page.dir).orderBy('u.id', page.dir).limit(page.limit + 1).offset(page.offset).execute();
  return { ids: rows.map((r) => r.id), ...total };
}
