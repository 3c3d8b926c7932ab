import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../db/schema';

type Q = Transaction<Database> | Kysely<Database>;
type Mode = 'test' | 'live';

/**
 * How an invoice's collected money covers its lines (docs/merchant-api.md, "Part-payments").
 *
 * Rule: the invoice has collected the sum of `amount_minor` of its `success` sessions in the
 * invoice's currency (payer-borne fees are not invoice money). That sum covers the lines in the
 * order they are listed (first recorded first, then by code), each line wholly before the next:
 * a line is remitted once everything before it and the line itself are covered. A later,
 * smaller line is never paid ahead of an earlier one, so the remitted lines are always a prefix
 * of the list and the same payments always give the same result.
 */
interface LineAllocation {
  code: string;
  amount_minor: number;
  /** Part of this line's amount the collected money covers (0 … amount_minor). */
  allocated_minor: number;
  covered: boolean;
}

function allocate(lines: ReadonlyArray<{ code: string; amount_minor: number }>, collectedMinor: number): LineAllocation[] {
  let left = collectedMinor;
  let blocked = false;
  return lines.map((l) => {
    const allocated = blocked ? 0 : Math.min(left, l.amount_minor);
    left -= allocated;
    const covered = !blocked && allocated === l.amount_minor;
    if (!covered) blocked = true;
    return { code: l.code, amount_minor: l.amount_minor, allocated_minor: allocated, covered };
  });
}

/**
 * Sum of the invoice's successful sessions in `currency` (null: any currency, for invoices with
 * no lines). Only sessions of the invoice's mode count: a test payment never pays a live invoice
 * (the session id carries the mode, `cs_test_…` / `cs_live_…`).
 */
export async function collectedMinor(q: Q, merchantId: string, mode: Mode, invoiceRef: string, currency: string | null): Promise<number> {
  let query = q
    .selectFrom('checkout_sessions')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('amount_minor'), eb.lit(0)).as('n'))
    .where('merchant_id', '=', merchantId)
    // `_` in LIKE matches any one character, the literal `_` included.
    .where('id', 'like', `cs_${mode}_%`)
    .where('invoice_ref', '=', invoiceRef)
    .where('status', '=', 'success');
  if (currency !== null) query = query.where('currency', '=', currency);
  const row = await query.executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The invoice's lines in allocation order (the order GET /api/v1/invoice-lines lists them). */
function orderedLines(q: Q, merchantId: string, mode: Mode, invoiceRef: string) {
  return q
    .selectFrom('invoice_lines')
    .select(['id', 'code', 'name', 'amount_minor', 'currency', 'remitted', 'remitted_at'])
    .where('merchant_id', '=', merchantId)
    .where('mode', '=', mode)
    .where('invoice_ref', '=', invoiceRef)
    .orderBy('created_at')
    .orderBy('code')
    .execute();
}

/**
 * Re-applies the rule after a payment or an ingest: lines now covered become remitted (stamped
 * `now`). Collected money only grows and remitted lines are frozen, so a covered line never
 * becomes uncovered at run time; only migration 0007 (recomputing old data) un-remits.
 * Returns true when lines were remitted (the caller refreshes the invoice summary, invoice-summary.ts).
 */
export async function reallocateInvoice(
  trx: Q,
  merchantId: string,
  mode: Mode,
  invoiceRef: string,
  now: string,
  /** The invoice's collectedMinor in its lines' currency, when the caller has just read it. */
  known?: number,
): Promise<boolean> {
  const lines = await orderedLines(trx, merchantId, mode, invoiceRef);
  if (lines.length === 0) return false;
  const collected = known ?? (await collectedMinor(trx, merchantId, mode, invoiceRef, lines[0]!.currency));
  const covered = allocate(lines, collected);
  const newly = lines.filter((l, i) => covered[i]!.covered && l.remitted === 0).map((l) => l.id);
  if (newly.length === 0) return false;
  await trx.updateTable('invoice_lines').set({ remitted: 1, remitted_at: now, updated_at: now }).where('id', 'in', newly).where('remitted', '=', 0).execute();
  return true;
}
