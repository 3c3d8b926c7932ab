import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../db/schema';
import type { PublicCheckoutSession } from '../../../shared/schemas/checkout';
import type { Rail } from '../../../shared/schemas/common';
import type { SessionWithOwner } from './payments.repository';
import { slipBody } from './slip-body';

type Q = Kysely<Database> | Transaction<Database>;
type PayerExtras = Pick<PublicCheckoutSession, 'cash_slip' | 'cash_rejection' | 'payment'>;

/**
 * The parts of the payer's view that come from the session's cash slips, deposits and
 * attempts (docs/checkout.md): the slip to show again after a reload, the reason of a
 * rejected cash deposit, and once paid, the receipt (what was charged, when, and the reference).
 */
export async function payerExtras(q: Q, s: SessionWithOwner, now: Date): Promise<PayerExtras> {
  const nowIso = now.toISOString();
  // At most one slip is payable per session (a unique index): the one a reloaded page shows again.
  const slip = await q
    .selectFrom('cash_slips')
    .selectAll()
    .where('session_id', '=', s.id)
    .where('status', 'in', ['active', 'under_review'])
    .where('expires_at', '>', nowIso)
    .executeTakeFirst();
  let cashRejection: PayerExtras['cash_rejection'] = null;
  // A rejection is news only until the payer has a new slip (or the session moved on).
  if (!slip && s.status === 'open') {
    const d = await q
      .selectFrom('cash_deposits as d')
      .innerJoin('cash_slips as sl', 'sl.id', 'd.slip_id')
      .select(['sl.reference', 'd.amount_minor', 'd.currency', 'd.review_reason', 'd.reviewed_at'])
      .where('d.session_id', '=', s.id)
      .where('d.status', '=', 'rejected')
      .orderBy('d.reviewed_at', 'desc')
      .executeTakeFirst();
    const newer = d?.reviewed_at
      ? await q.selectFrom('cash_slips').select('id').where('session_id', '=', s.id).where('created_at', '>', d.reviewed_at).executeTakeFirst()
      : undefined;
    if (d?.reviewed_at && !newer) {
      cashRejection = { slip_reference: d.reference, amount_minor: d.amount_minor, currency: d.currency, reason: d.review_reason ?? '', rejected_at: d.reviewed_at };
    }
  }
  return {
    cash_slip: slip ? slipBody(slip, s, true, now) : null,
    cash_rejection: cashRejection,
    payment: s.status === 'success' ? await paymentReceipt(q, s) : null,
  };
}

async function paymentReceipt(q: Q, s: SessionWithOwner): Promise<PayerExtras['payment']> {
  const paidAt = s.finalized_at ?? s.updated_at;
  if (s.paid_rail === 'cash') {
    const paid = await q
      .selectFrom('cash_deposits as d')
      .innerJoin('cash_slips as sl', 'sl.id', 'd.slip_id')
      .select(['sl.reference', 'sl.base_minor', 'sl.fee_minor', 'd.amount_minor', 'd.currency'])
      .where('d.session_id', '=', s.id)
      .where('d.status', '=', 'approved')
      .executeTakeFirst();
    if (!paid) return null;
    return {
      rail: 'cash',
      base_minor: paid.base_minor,
      fee_minor: paid.fee_minor,
      amount_charged_minor: paid.amount_minor,
      currency: paid.currency,
      paid_at: paidAt,
      provider: 'Cash deposit at a bank branch',
      reference: paid.reference,
    };
  }
  const a = await q
    .selectFrom('payment_attempts')
    .selectAll()
    .where('session_id', '=', s.id)
    .where('status', '=', 'succeeded')
    .orderBy('finalized_at', 'desc')
    .executeTakeFirst();
  if (!a) return null;
  return {
    rail: a.rail as Rail,
    base_minor: a.base_minor,
    fee_minor: a.fee_minor,
    amount_charged_minor: a.amount_charged_minor,
    currency: a.currency,
    paid_at: a.finalized_at ?? paidAt,
    provider: a.provider,
    reference: a.payment_reference ?? a.provider_reference,
  };
}
