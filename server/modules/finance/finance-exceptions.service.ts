import type { Db } from '../../db/database';
import { EXCEPTION_KINDS, type ExceptionKind, type ExceptionList, type FinanceException } from '../../../shared/schemas/finance-exceptions';
import type { SessionStatus } from '../../../shared/schemas/common';
import { formatMoney as money } from '../../../shared/money';
import { csvCell } from '../../lib/csv';

interface PaidSession {
  id: string;
  invoice_ref: string;
  status: SessionStatus;
  amount_minor: number;
  currency: string;
  paid_rail: string | null;
  created_at: string;
  finalized_at: string | null;
}

/**
 * Payments that do not reconcile with their invoice, derived from the merchant's successful
 * sessions and its invoice lines (nothing is stored, so the list is always current). Each
 * invoice's payments are taken in the order they were confirmed (`finalized_at`, then id):
 *
 * - `paid_twice`: the payment arrived when the invoice was already fully paid (billed total
 *   collected; for an invoice with no lines, any earlier payment) and the session was created
 *   after that.
 * - `concurrent_sessions_paid`: the same, but the session was already open when the earlier
 *   payment completed the invoice (two open sessions for one invoice, both paid).
 * - `amount_differs`: a payment smaller than what the invoice still had outstanding (a
 *   part-payment: the amount differs from the billed total and leaves a balance).
 * - `overpaid`: the invoice collected more than its billed total; one per invoice, raised by the
 *   payment that crossed the total, listing every payment.
 */
export async function financeExceptions(db: Db, merchantId: string): Promise<FinanceException[]> {
  const paid = (await db
    .selectFrom('checkout_sessions')
    .select(['id', 'invoice_ref', 'status', 'amount_minor', 'currency', 'paid_rail', 'created_at', 'finalized_at'])
    .where('merchant_id', '=', merchantId)
    .where('status', '=', 'success')
    .orderBy('invoice_ref')
    .orderBy('finalized_at')
    .orderBy('id')
    .execute()) as PaidSession[];
  const billedRows = await db
    .selectFrom('invoice_lines')
    .select((eb) => ['invoice_ref', 'currency', eb.fn.sum<number>('amount_minor').as('billed')])
    .where('merchant_id', '=', merchantId)
    .groupBy(['invoice_ref', 'currency'])
    .execute();
  const billed = new Map(billedRows.map((r) => [r.invoice_ref, { currency: r.currency, billed: Number(r.billed) }]));

  const byInvoice = new Map<string, PaidSession[]>();
  for (const s of paid) byInvoice.set(s.invoice_ref, [...(byInvoice.get(s.invoice_ref) ?? []), s]);

  const out: FinanceException[] = [];
  for (const [invoiceRef, all] of byInvoice) {
    const lines = billed.get(invoiceRef);
    const currency = lines?.currency ?? all[0]!.currency;
    const sessions = all.filter((s) => s.currency === currency); // other currencies are refused at creation once lines exist
    const billedMinor = lines?.billed ?? 0;
    const collected = sessions.reduce((n, s) => n + s.amount_minor, 0);
    const m = (minor: number) => money(minor, currency);
    const row = (kind: ExceptionKind, trigger: PaidSession, before: number, involved: PaidSession[], summary: string): FinanceException => ({
      id: `${kind}:${trigger.id}`,
      kind,
      invoice_ref: invoiceRef,
      currency,
      billed_minor: billedMinor,
      collected_before_minor: before,
      amount_minor: trigger.amount_minor,
      collected_minor: collected,
      difference_minor: collected - billedMinor,
      session_id: trigger.id,
      detected_at: trigger.finalized_at ?? trigger.created_at,
      summary,
      sessions: involved.map((s) => ({ id: s.id, status: s.status, amount_minor: s.amount_minor, paid_rail: s.paid_rail, created_at: s.created_at, finalized_at: s.finalized_at, trigger: s.id === trigger.id })),
    });

    let before = 0;
    let fullyPaidAt: string | null = null;
    let crossed = false;
    for (const [i, s] of sessions.entries()) {
      const earlier = sessions.slice(0, i);
      const at = s.finalized_at ?? s.created_at;
      if (fullyPaidAt !== null) {
        const concurrent = s.created_at < fullyPaidAt;
        const what = billedMinor > 0 ? `${m(billedMinor)} billed, ${m(before)} already collected` : `already paid by ${earlier.length} earlier session${earlier.length === 1 ? '' : 's'}`;
        out.push(
          concurrent
            ? row('concurrent_sessions_paid', s, before, [...earlier, s], `Session was open while an earlier session completed the invoice, and was paid too: ${m(s.amount_minor)} more (${what}).`)
            : row('paid_twice', s, before, [...earlier, s], `Paid ${m(s.amount_minor)} again after the invoice was fully paid (${what}).`),
        );
      } else if (billedMinor > 0 && s.amount_minor < billedMinor - before) {
        const left = billedMinor - before - s.amount_minor;
        out.push(row('amount_differs', s, before, [...earlier, s], `Paid ${m(s.amount_minor)} of ${m(billedMinor - before)} due on a ${m(billedMinor)} invoice; ${m(left)} still outstanding.`));
      }
      before += s.amount_minor;
      if (billedMinor > 0 && !crossed && before > billedMinor) {
        crossed = true;
        out.push(row('overpaid', s, before - s.amount_minor, sessions, `Invoice billed ${m(billedMinor)} has collected ${m(collected)}: ${m(collected - billedMinor)} over-paid across ${sessions.length} payment${sessions.length === 1 ? '' : 's'}.`));
      }
      if (fullyPaidAt === null && (billedMinor > 0 ? before >= billedMinor : true)) fullyPaidAt = at;
    }
  }
  out.sort((a, b) => (a.detected_at === b.detected_at ? (a.id < b.id ? -1 : 1) : a.detected_at < b.detected_at ? 1 : -1));
  return out;
}

export async function listFinanceExceptions(db: Db, merchantId: string, f: { kind?: ExceptionKind | undefined; limit: number; offset: number }): Promise<ExceptionList> {
  const all = await financeExceptions(db, merchantId);
  const counts = Object.fromEntries(EXCEPTION_KINDS.map((k) => [k, all.filter((e) => e.kind === k).length])) as Record<ExceptionKind, number>;
  const matching = f.kind ? all.filter((e) => e.kind === f.kind) : all;
  return { exceptions: matching.slice(f.offset, f.offset + f.limit), total: matching.length, counts };
}

export const EXCEPTION_CSV_COLUMNS = [
  'detected_at',
  'kind',
  'invoice_ref',
  'currency',
  'billed_minor',
  'collected_before_minor',
  'amount_minor',
  'collected_minor',
  'difference_minor',
  'session_id',
  'paid_rail',
  'other_sessions',
  'summary',
] as const;

/** The exceptions list as CSV (same cell rules as the payments export: formulas neutralised). */
export async function exceptionsCsv(db: Db, merchantId: string, kind: ExceptionKind | undefined): Promise<string> {
  const all = await financeExceptions(db, merchantId);
  const lines = [EXCEPTION_CSV_COLUMNS.join(',')];
  for (const e of all) {
    if (kind && e.kind !== kind) continue;
    const trigger = e.sessions.find((s) => s.trigger);
    const others = e.sessions.filter((s) => !s.trigger).map((s) => s.id).join(' ');
    const row = [e.detected_at, e.kind, e.invoice_ref, e.currency, e.billed_minor, e.collected_before_minor, e.amount_minor, e.collected_minor, e.difference_minor, e.session_id, trigger?.paid_rail ?? null, others, e.summary];
    lines.push(row.map(csvCell).join(','));
  }
  return `${lines.join('\r\n')}\r\n`;
}
