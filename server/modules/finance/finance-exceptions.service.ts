import type { Db } from '../../db/database';
import { EXCEPTION_KINDS, type ExceptionKind, type ExceptionList, type FinanceException } from '../../../shared/schemas/finance-exceptions';
import type { SessionStatus } from '../../../shared/schemas/common';
import { formatMoney as money } from '../../../shared/money';

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

/** At most this many sessions are listed per exception: the trigger and the payments nearest before it. */
const MAX_EXCEPTION_SESSIONS = 50;
/** Candidate invoices per sessions query (an IN list well below both engines' parameter limits). */
const REFS_PER_QUERY = 500;

/** An exception before its session list is built: sorting and counting need only these. */
interface Found {
  id: string;
  kind: ExceptionKind;
  detected_at: string;
  invoice_ref: string;
  currency: string;
  /** The invoice's figures now (a review holds while they are unchanged). */
  figures: { success_count: number; paid_minor: number; billed_minor: number; collected_minor: number };
  summary(): string;
  build(): FinanceException;
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
 *
 * Bounded: only invoices that can hold an exception are read, found in
 * `invoice_summaries` (migration 0017) through two partial indexes: two payments or more, or
 * one that differs from a billed total (one payment of exactly the billed total, or on an
 * invoice without lines, is never an exception). Each exception lists at most
 * MAX_EXCEPTION_SESSIONS sessions (the trigger and the payments nearest before it; `overpaid`
 * the first ones and the trigger), and session lists are built only for what is returned.
 */
export async function findExceptions(db: Db, merchantId: string): Promise<Found[]> {
  const candidates = (
    await db
      .selectFrom('invoice_summaries')
      .select(['invoice_ref', 'line_count', 'billed_minor', 'line_currency', 'test_line_count', 'test_billed_minor', 'success_count', 'paid_minor'])
      .where('merchant_id', '=', merchantId)
      .where('success_count', '>', 1)
      .unionAll((eb) =>
        eb
          .selectFrom('invoice_summaries')
          .select(['invoice_ref', 'line_count', 'billed_minor', 'line_currency', 'test_line_count', 'test_billed_minor', 'success_count', 'paid_minor'])
          .where('merchant_id', '=', merchantId)
          .where('success_count', '=', 1)
          .where('line_count', '>', 0)
          .whereRef('paid_minor', '<>', 'billed_minor'),
      )
      .execute()
  ).sort((a, b) => (a.invoice_ref < b.invoice_ref ? -1 : 1));
  const out: Found[] = [];
  for (let i = 0; i < candidates.length; i += REFS_PER_QUERY) {
    const chunk = candidates.slice(i, i + REFS_PER_QUERY);
    const paid = (await db
      .selectFrom('checkout_sessions')
      .select(['id', 'invoice_ref', 'status', 'amount_minor', 'currency', 'paid_rail', 'created_at', 'finalized_at'])
      .where('merchant_id', '=', merchantId)
      .where('invoice_ref', 'in', chunk.map((c) => c.invoice_ref))
      .where('status', '=', 'success')
      .execute()) as PaidSession[];
    const byInvoice = new Map<string, PaidSession[]>();
    for (const s of paid) {
      const list = byInvoice.get(s.invoice_ref);
      if (list) list.push(s);
      else byInvoice.set(s.invoice_ref, [s]);
    }
    for (const c of chunk) {
      const all = (byInvoice.get(c.invoice_ref) ?? []).sort((a, b) => cmp(a.finalized_at ?? '', b.finalized_at ?? '') || cmp(a.id, b.id));
      // Each mode is its own invoice: test payments are checked against test lines, live against live, never mixed.
      for (const mode of ['live', 'test'] as const) {
        const sessions = all.filter((x) => x.id.startsWith('cs_test_') === (mode === 'test'));
        const [testLines, testBilled] = [Number(c.test_line_count), Number(c.test_billed_minor)];
        const [lineCount, billed] = mode === 'test' ? [testLines, testBilled] : [Number(c.line_count) - testLines, Number(c.billed_minor) - testBilled];
        // The invoice's figures (both modes): a review holds while they are unchanged.
        const figures = { success_count: Number(c.success_count), paid_minor: Number(c.paid_minor), billed_minor: Number(c.billed_minor) };
        if (sessions.length > 0) invoiceExceptions(out, mode, c.invoice_ref, lineCount > 0 ? { currency: c.line_currency ?? sessions[0]!.currency, billed } : undefined, sessions, figures);
      }
    }
  }
  out.sort((a, b) => (a.detected_at === b.detected_at ? (a.id < b.id ? -1 : 1) : a.detected_at < b.detected_at ? 1 : -1));
  return out;
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function invoiceExceptions(
  out: Found[],
  mode: 'live' | 'test',
  invoiceRef: string,
  lines: { currency: string; billed: number } | undefined,
  all: PaidSession[],
  figures: { success_count: number; paid_minor: number; billed_minor: number },
): void {
  const currency = lines?.currency ?? all[0]!.currency;
  const sessions = all.filter((s) => s.currency === currency); // other currencies are refused at creation once lines exist
  const billedMinor = lines?.billed ?? 0;
  const collected = sessions.reduce((n, s) => n + s.amount_minor, 0);
  const m = (minor: number) => money(minor, currency);
  const involvedBefore = (i: number) => [...sessions.slice(Math.max(0, i + 1 - MAX_EXCEPTION_SESSIONS), i), sessions[i]!];
  const found = (kind: ExceptionKind, i: number, before: number, involved: () => PaidSession[], summary: () => string): Found => {
    const trigger = sessions[i]!;
    const detectedAt = trigger.finalized_at ?? trigger.created_at;
    return {
      id: `${kind}:${trigger.id}`,
      kind,
      detected_at: detectedAt,
      invoice_ref: invoiceRef,
      currency,
      figures: { ...figures, collected_minor: collected },
      summary,
      build: () => ({
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
        detected_at: detectedAt,
        summary: summary(),
        sessions: involved().map((s) => ({ id: s.id, status: s.status, amount_minor: s.amount_minor, paid_rail: s.paid_rail, created_at: s.created_at, finalized_at: s.finalized_at, trigger: s.id === trigger.id })),
        mode,
      }),
    };
  };

  let before = 0;
  let fullyPaidAt: string | null = null;
  let crossed = false;
  for (const [i, s] of sessions.entries()) {
    const at = s.finalized_at ?? s.created_at;
    if (fullyPaidAt !== null) {
      const concurrent = s.created_at < fullyPaidAt;
      const collectedBefore = before;
      const what = () => (billedMinor > 0 ? `${m(billedMinor)} billed, ${m(collectedBefore)} already collected` : `already paid by ${i} earlier session${i === 1 ? '' : 's'}`);
      out.push(
        concurrent
          ? found('concurrent_sessions_paid', i, before, () => involvedBefore(i), () => `Session was open while an earlier session completed the invoice, and was paid too: ${m(s.amount_minor)} more (${what()}).`)
          : found('paid_twice', i, before, () => involvedBefore(i), () => `Paid ${m(s.amount_minor)} again after the invoice was fully paid (${what()}).`),
      );
    } else if (billedMinor > 0 && s.amount_minor < billedMinor - before) {
      const left = billedMinor - before - s.amount_minor;
      const due = billedMinor - before;
      out.push(found('amount_differs', i, before, () => involvedBefore(i), () => `Paid ${m(s.amount_minor)} of ${m(due)} due on a ${m(billedMinor)} invoice; ${m(left)} still outstanding.`));
    }
    before += s.amount_minor;
    if (billedMinor > 0 && !crossed && before > billedMinor) {
      crossed = true;
      const everyOne = () => (sessions.length <= MAX_EXCEPTION_SESSIONS ? sessions : i < MAX_EXCEPTION_SESSIONS ? sessions.slice(0, MAX_EXCEPTION_SESSIONS) : [...sessions.slice(0, MAX_EXCEPTION_SESSIONS - 1), s]);
      out.push(found('overpaid', i, before - s.amount_minor, everyOne, () => `Invoice billed ${m(billedMinor)} has collected ${m(collected)}: ${m(collected - billedMinor)} over-paid across ${sessions.length} payment${sessions.length === 1 ? '' : 's'}.`));
    }
    if (fullyPaidAt === null && (billedMinor > 0 ? before >= billedMinor : true)) fullyPaidAt = at;
  }
}

export async function listFinanceExceptions(db: Db, merchantId: string, f: { kind?: ExceptionKind | undefined; limit: number; offset: number }): Promise<ExceptionList> {
  const all = await findExceptions(db, merchantId);
  const counts = Object.fromEntries(EXCEPTION_KINDS.map((k) => [k, 0])) as Record<ExceptionKind, number>;
  for (const e of all) counts[e.kind]++;
  const matching = f.kind ? all.filter((e) => e.kind === f.kind) : all;
  return { exceptions: matching.slice(f.offset, f.offset + f.limit).map((e) => e.build()), total: matching.length, counts };
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
  'status',
  'note',
  'reviewed_by',
  'reviewed_at',
  /** Always `UTC`: the zone of every time in the file (`detected_at`, `reviewed_at`). */
  'time_zone',
  /** `test` or `live`, last as it always was. */
  'mode',
] as const;

/** One exception's cells, in EXCEPTION_CSV_COLUMNS order up to `summary`. */
export function exceptionCsvRow(found: Found): Array<string | number | null> {
  const e = found.build();
  const trigger = e.sessions.find((s) => s.trigger);
  const others = e.sessions.filter((s) => !s.trigger).map((s) => s.id).join(' ');
  return [e.detected_at, e.kind, e.invoice_ref, e.currency, e.billed_minor, e.collected_before_minor, e.amount_minor, e.collected_minor, e.difference_minor, e.session_id, trigger?.paid_rail ?? null, others, e.summary];
}
