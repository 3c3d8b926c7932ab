import type { Db } from '../../db/database';
import type { CheckoutSessionsTable } from '../../db/schema';
import { NO_STATUS } from '../../domain/session-transitions';
import type { TimelineDetailCode, TimelineEntry } from '../../../shared/schemas/backoffice';
import type { SessionStatus } from '../../../shared/schemas/common';
import { formatMoney as money } from '../../../shared/money';
import { cardLabel, declineReasonLabel, eventTypeLabel, railLabel, SESSION_STATUS_LABELS, SLIP_STATUS_LABELS } from '../../../shared/labels';
import { networkLabel } from '../../../shared/countries';
import { deliveryEntries } from './session-deliveries';

type Args = Record<string, string | number | null>;
/** A timeline line's detail: the English words (`detail`) and the same as a code with its parts. */
interface Detail {
  detail: string;
  detail_code: TimelineDetailCode | null;
  detail_args: Args;
}

/**
 * Gross, fee and net in words, the same amounts the list and the CSV show:
 * "GHS 185.00 charged · card fee GHS 3.61 paid by the merchant · GHS 181.39 to the merchant";
 * a payer-borne fee is part of what was charged ("GHS 102.00 charged · cash fee GHS 2.00 paid by the payer · GHS 100.00 to the merchant").
 */
const breakdown = (rail: string, base: number, fee: number, total: number, currency: string) => {
  if (fee === 0) return `${money(total, currency)} charged · no fee · ${money(total, currency)} to the merchant`;
  const payer = total > base;
  return `${money(total, currency)} charged · ${rail} fee ${money(fee, currency)} paid by the ${payer ? 'payer' : 'merchant'} · ${money(total - fee, currency)} to the merchant`;
};
/** The same three amounts as `breakdown`, as numbers: who bore the fee is null when there is none. */
const amounts = (base: number, fee: number, total: number, currency: string): Args => ({
  currency,
  charged_minor: total,
  fee_minor: fee,
  net_minor: total - fee,
  fee_bearer: fee === 0 ? null : total > base ? 'payer' : 'merchant',
});
/** How an attempt ended, in words. */
const ATTEMPT_OUTCOMES: Readonly<Record<string, string>> = { succeeded: 'succeeded', declined: 'was declined', expired: 'expired', failed: 'failed', cancelled: 'was cancelled' };
const stateWord = (status: string) => SESSION_STATUS_LABELS[status as SessionStatus] ?? status;
const feeWord = (rail: string) => (rail === 'momo' ? 'Mobile Money' : rail === 'bank_transfer' ? 'bank transfer' : rail);

/**
 * A status change's recorded cause as a sentence: rails in words, internal ids and provider
 * status codes left out ("card payment pa_8f… approved" → "Card payment approved"; the ids are on
 * the attempt and deposit entries of the same timeline).
 */
function causeInWords(cause: string): string {
  if (cause === 'expires_at passed while open') return 'The time to pay ran out before a payment was made';
  const s = cause
    .replace(/\s*\([A-Z0-9_:\- ]+\)/g, '')
    .replace(/\s\b(?:pa|dep|cs)_[A-Za-z0-9_]+/g, '')
    .replace(/\b(momo|card|bank_transfer|cash) (?:attempt|payment)\b/g, (_, rail: string) => `${railLabel(rail)} payment`)
    .replace(/; /g, ', ');
  return `${s.charAt(0).toUpperCase()}${s.slice(1)}`;
}

/**
 * What follows "<rail> attempt <id> " (or "card payment <id> ") in a cause, as the payment
 * modules write it (server/modules/payments/: initiate, card, momo, bank-transfer, attempts;
 * server/jobs/sweeper.ts; server/domain/bank-transfer-window.ts), and its code.
 */
const ATTEMPT_CAUSES: ReadonlyArray<readonly [RegExp, TimelineDetailCode, (m: RegExpMatchArray) => Args]> = [
  [/^prompt sent$/, 'cause_prompt_sent', () => ({})],
  [/^instructions issued, valid until (\S+)$/, 'cause_instructions_issued', (m) => ({ valid_until: m[1]! })],
  [/^sent to the card provider$/, 'cause_sent_to_provider', () => ({})],
  [/^refused by the provider$/, 'cause_provider_refused', () => ({})],
  [/^(\w+) at initiation$/, 'cause_settled_at_initiation', (m) => ({ status: m[1]! })],
  [/^approved by the payer$/, 'cause_approved_by_payer', () => ({})],
  [/^confirmed on resend$/, 'cause_confirmed_on_resend', () => ({})],
  [/^approved$/, 'cause_approved', () => ({})],
  [/^confirmed on refresh$/, 'cause_confirmed_on_refresh', () => ({})],
  [/^transfer received$/, 'cause_transfer_received', () => ({})],
  [/^prompt expired$/, 'cause_prompt_expired', () => ({})],
  [/^window ended without a transfer$/, 'cause_transfer_window_ended', () => ({})],
  // A provider's answer that ended the attempt: its status in words, the provider's own code left out.
  [/^(\w+) \([^)]*\)$/, 'cause_attempt_ended', (m) => ({ status: m[1]! })],
];
const ATTEMPT_CAUSE = /^(momo|card|bank_transfer|bank transfer|cash) (?:attempt|payment) (\S+) (.+)$/s;
/** "cash deposit <id> recorded by <username>; awaiting supervisor review", "… approved by <username>", "… rejected by <username>: <reason>" (server/modules/cash/cash.service.ts). */
const DEPOSIT_CAUSE = /^cash deposit (\S+) (recorded|approved|rejected) by (.*)$/s;
const DECLINE_LIMIT = /^(\d+) declined payment attempts \(anti-abuse cap\)$/;

/** Who recorded or reviewed a deposit: the username, and the full name when the account has one. */
interface DepositPeople {
  status: string;
  recorded_by_username: string;
  recorded_by_name: string | null;
  reviewed_by_username: string | null;
  reviewed_by_name: string | null;
  review_reason: string | null;
}

/**
 * A recorded cause as a code with its parts. A deposit's people and reason are read from the
 * deposit itself (with the full names of their accounts), the cause's own text when the deposit
 * is gone; an unknown cause is `cause_other` with its English words.
 */
function causeOf(cause: string, deposits: ReadonlyMap<string, DepositPeople>): { code: TimelineDetailCode; args: Args } {
  if (cause === 'expires_at passed while open') return { code: 'cause_time_ran_out', args: {} };
  if (cause === 'declined, and no payment method can complete any more') return { code: 'cause_no_method_left', args: {} };
  const limit = DECLINE_LIMIT.exec(cause);
  if (limit) return { code: 'cause_decline_limit', args: { count: Number(limit[1]) } };
  const attempt = ATTEMPT_CAUSE.exec(cause);
  if (attempt) {
    const rail = attempt[1]!.replace(' ', '_');
    for (const [pattern, code, args] of ATTEMPT_CAUSES) {
      const m = pattern.exec(attempt[3]!);
      if (m) return { code, args: { rail, ...args(m) } };
    }
  }
  const deposit = DEPOSIT_CAUSE.exec(cause);
  if (deposit) {
    const [, id = '', what = '', rest = ''] = deposit;
    const d = deposits.get(id);
    if (what === 'recorded') {
      return { code: 'cause_deposit_recorded', args: { username: d?.recorded_by_username ?? rest.replace(/; awaiting supervisor review$/, ''), full_name: d?.recorded_by_name ?? null } };
    }
    const typed = what === 'rejected' ? rest.indexOf(': ') : -1;
    const username = d?.reviewed_by_username ?? (typed >= 0 ? rest.slice(0, typed) : rest);
    const full_name = d?.reviewed_by_name ?? null;
    if (what === 'approved') return { code: 'cause_deposit_approved', args: { username, full_name } };
    return { code: 'cause_deposit_rejected', args: { username, full_name, reason: d?.review_reason ?? (typed >= 0 ? rest.slice(typed + 2) : null) } };
  }
  return { code: 'cause_other', args: { text: causeInWords(cause) } };
}

/**
 * Everything that happened to a session, oldest first: its creation, every status change with
 * its cause, payment attempts, cash slips, deposits and their review, events and the
 * notifications of them. Each line has English words (`title`, `detail`) and the same as codes
 * with their parts (`code`/`args`, `detail_code`/`detail_args`) for the screen to word in its
 * reader's language.
 */
export async function sessionTimeline(db: Db, s: CheckoutSessionsTable): Promise<TimelineEntry[]> {
  const [history, attempts, slips, deposits, events] = await Promise.all([
    db.selectFrom('session_history').selectAll().where('session_id', '=', s.id).execute(),
    db.selectFrom('payment_attempts').selectAll().where('session_id', '=', s.id).execute(),
    db.selectFrom('cash_slips').selectAll().where('session_id', '=', s.id).execute(),
    db
      .selectFrom('cash_deposits as d')
      .innerJoin('staff_users as rec', 'rec.id', 'd.recorded_by')
      .leftJoin('staff_users as rev', 'rev.id', 'd.reviewed_by')
      .selectAll('d')
      .select(['rec.username as recorded_by_username', 'rec.full_name as recorded_by_name', 'rev.username as reviewed_by_username', 'rev.full_name as reviewed_by_name'])
      .where('d.session_id', '=', s.id)
      .execute(),
    db.selectFrom('events').select(['id', 'type', 'created_at']).where('session_id', '=', s.id).execute(),
  ]);
  const people = new Map(deposits.map((d) => [d.id, { ...d, recorded_by_name: d.recorded_by_name ?? null, reviewed_by_name: d.reviewed_by_name ?? null }]));
  const detail = (english: string, code: TimelineDetailCode | null, args: Args = {}): Detail => ({ detail: english, detail_code: code, detail_args: args });
  const t: TimelineEntry[] = [
    {
      at: s.created_at,
      kind: 'created',
      code: 'session_created',
      args: {},
      title: 'Session created',
      ...detail(`${money(s.amount_minor, s.currency)} for invoice ${s.invoice_ref}`, 'session_amount', { amount_minor: s.amount_minor, currency: s.currency, invoice_ref: s.invoice_ref }),
      ref: s.id,
    },
  ];
  // The creation row (none → open) is the "Session created" entry above, which sessions made before it had too.
  for (const h of history.filter((row) => row.from_status !== NO_STATUS)) {
    const cause = causeOf(h.cause, people);
    const title = `Status changed from ${stateWord(h.from_status)} to ${stateWord(h.to_status)}`;
    t.push({ at: h.at, kind: 'transition', code: 'transition', args: { from: h.from_status, to: h.to_status }, title, ...detail(causeInWords(h.cause), cause.code, cause.args), ref: null });
  }
  for (const a of attempts) {
    const rail = railLabel(a.rail);
    const who =
      a.rail === 'momo'
        ? ` · ${a.operator ? networkLabel(a.operator) : 'Mobile Money'}${a.phone_last4 ? ` number ending ${a.phone_last4}` : ''}`
        : a.rail === 'card'
          ? ` · ${cardLabel(a.card_brand, a.card_last4)}`
          : a.payment_reference
            ? ` · reference ${a.payment_reference}`
            : '';
    const means = { operator: a.operator, phone_last4: a.phone_last4, card_brand: a.card_brand, card_last4: a.card_last4, payment_reference: a.payment_reference };
    const started = detail(`${breakdown(feeWord(a.rail), a.base_minor, a.fee_minor, a.amount_charged_minor, a.currency)}${who}`, 'attempt_amounts', {
      rail: a.rail,
      ...amounts(a.base_minor, a.fee_minor, a.amount_charged_minor, a.currency),
      ...means,
    });
    t.push({ at: a.created_at, kind: 'attempt', code: 'attempt_started', args: { rail: a.rail }, title: `${rail} attempt started`, ...started, ref: a.id });
    if (a.finalized_at) {
      const reason = a.decline_reason ? detail(`Reason: ${declineReasonLabel(a.decline_reason)}`, 'decline_reason', { reason: a.decline_reason }) : detail('', null);
      t.push({ at: a.finalized_at, kind: 'attempt', code: 'attempt_finished', args: { rail: a.rail, status: a.status }, title: `${rail} attempt ${ATTEMPT_OUTCOMES[a.status] ?? a.status}`, ...reason, ref: a.id });
    }
  }
  for (const sl of slips) {
    const words = `${breakdown('cash', sl.base_minor, sl.fee_minor, sl.amount_minor, sl.currency)} · now ${SLIP_STATUS_LABELS[sl.status as keyof typeof SLIP_STATUS_LABELS] ?? sl.status}`;
    const issued = detail(words, 'slip_amounts', { ...amounts(sl.base_minor, sl.fee_minor, sl.amount_minor, sl.currency), slip_status: sl.status });
    t.push({ at: sl.created_at, kind: 'slip', code: 'slip_issued', args: { reference: sl.reference }, title: `Cash slip ${sl.reference} issued`, ...issued, ref: sl.reference });
  }
  for (const d of deposits) {
    const recorded = detail(`${money(d.amount_minor, d.currency)} by ${d.recorded_by_username}${d.note ? ` · “${d.note}”` : ''}`, 'deposit_amount', {
      amount_minor: d.amount_minor,
      currency: d.currency,
      username: d.recorded_by_username,
      full_name: d.recorded_by_name ?? null,
      note: d.note,
    });
    t.push({ at: d.created_at, kind: 'deposit', code: 'deposit_recorded', args: {}, title: 'Cash deposit recorded', ...recorded, ref: d.id });
    if (d.reviewed_at) {
      const reviewed = detail(`by ${d.reviewed_by_username ?? 'unknown'}${d.review_reason ? ` · ${d.review_reason}` : ''}`, 'deposit_review', {
        status: d.status,
        username: d.reviewed_by_username,
        full_name: d.reviewed_by_name ?? null,
        reason: d.review_reason,
      });
      t.push({ at: d.reviewed_at, kind: 'deposit', code: 'deposit_reviewed', args: { status: d.status }, title: `Cash deposit ${d.status}`, ...reviewed, ref: d.id });
    }
  }
  for (const e of events) t.push({ at: e.created_at, kind: 'event', code: 'event', args: { type: e.type }, title: `Merchant notified: ${eventTypeLabel(e.type)}`, ...detail('', null), ref: e.id });
  t.push(...(await deliveryEntries(db, events.map((e) => e.id))));
  const kindOrder = ['created', 'attempt', 'slip', 'deposit', 'transition', 'event', 'delivery'];
  t.sort((a, b) => (a.at === b.at ? kindOrder.indexOf(a.kind) - kindOrder.indexOf(b.kind) : a.at < b.at ? -1 : 1));
  return t;
}
