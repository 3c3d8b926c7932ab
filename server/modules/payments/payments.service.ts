import type { Db } from '../../db/database';
import { MOMO_OPERATORS } from '../../../shared/schemas/checkout';
import type { PublicCheckoutOptions, PublicCheckoutQuote, PublicCheckoutSession } from '../../../shared/schemas/checkout';
import { RAILS, type Rail } from '../../../shared/schemas/common';
import { OPERATOR_LABELS, RAIL_PAYER_LABELS } from '../../../shared/labels';
import { computeFee } from '../../domain/fees';
import { expireIfDue, isDue } from '../../domain/session-transitions';
import { findSession, sessionMomoCountries } from './payments.repository';
import { findSessionForQuote, quoteFeeRules, type QuoteInputMemory } from './quote-inputs';
import { loadFresh, notPayable, payableRails, type PaymentsDeps } from './rails';
import { fullInstructions } from './attempts';
import { payerExtras } from './payer-view';

/**
 * Payments: what the payer's hosted checkout calls (payments.routes.ts). This file holds the
 * payer's reads (options, the session, the quote); each payment operation has its own file:
 *
 * - initiate.ts: start a Mobile Money prompt or bank-transfer instructions
 * - momo.ts: authorize with the payer's code, resend the code
 * - attempts.ts: the attempt's moves, status with refresh=1, the three-step provider call
 * - card.ts: a card charge (test simulation)
 * - bank-transfer.ts: the bank's notification that a transfer arrived (sandbox)
 * - reconcile.ts: the sweeper's job for stuck and timed-out attempts
 * - rails.ts: the Deps, payable rails and the provider of a rail
 */
export type { PaymentsDeps } from './rails';
export { createProviderAttempt } from './initiate';
export { authorizeAttempt, resendCode } from './momo';
export { attemptStatus, RESEND_COOLDOWN_SECONDS } from './attempts';
export { payByCard } from './card';
export { reconcileStuckAttempts, RECONCILE_AFTER_SECONDS } from './reconcile';


export async function checkoutOptions(db: Db): Promise<PublicCheckoutOptions> {
  const banks = await db.selectFrom('banks').select(['id', 'name', 'code']).where('active', '=', 1).orderBy('name').execute();
  const branches = await db.selectFrom('branches').select(['id', 'bank_id', 'name', 'code']).where('active', '=', 1).orderBy('name').execute();
  return {
    payment_methods: RAILS.map((r) => ({ value: r, label: RAIL_PAYER_LABELS[r] })),
    branch_payment_methods: [{ value: 'cash', label: RAIL_PAYER_LABELS.cash }],
    banks: banks.map((b) => ({
      ...b,
      branches: branches.filter((br) => br.bank_id === b.id).map(({ id, name, code }) => ({ id, name, code })),
    })),
    momo_operators: MOMO_OPERATORS.map((o) => ({ value: o, label: OPERATOR_LABELS[o] ?? o })), // every country's: the session names its countries
  };
}

export async function publicSession(deps: PaymentsDeps, sessionId: string): Promise<PublicCheckoutSession> {
  return deps.db.transaction().execute(async (trx) => {
    const s = await loadFresh(trx, deps, sessionId);
    const lines = await trx
      .selectFrom('invoice_lines')
      .select(['code', 'name', 'amount_minor', 'currency'])
      .where('merchant_id', '=', s.merchant_id)
      .where('mode', '=', s.mode)
      .where('invoice_ref', '=', s.invoice_ref)
      .orderBy('created_at')
      .orderBy('code')
      .execute();
    const pending = await trx
      .selectFrom('payment_attempts')
      .selectAll()
      .where('session_id', '=', s.id)
      .where('status', '=', 'pending')
      .orderBy('created_at', 'desc')
      .executeTakeFirst();
    return {
      id: s.id,
      merchant_name: s.merchant_name,
      status: s.status,
      amount_minor: s.amount_minor,
      currency: s.currency,
      invoice_ref: s.invoice_ref,
      description: s.description ?? '',
      customer_name: s.customer_name ?? '',
      allowed_rails: payableRails(deps, s),
      expires_at: s.expires_at,
      ...(s.callback_url ? { return_to_merchant_url: s.callback_url } : {}),
      card_collection_mode: s.card_collection_mode,
      line_items: lines,
      mode: s.mode,
      // The session's currency and its integration decide its payer's countries; an integration without Mobile Money offers none.
      momo_countries: payableRails(deps, s).includes('momo') ? sessionMomoCountries(s).map((c) => c.code) : [],
      paid_rail: (s.paid_rail as Rail | null) ?? null,
      pending_attempt: pending
        ? { attempt_reference: pending.id, rail: pending.rail, status: pending.status, instructions: fullInstructions(pending, s) }
        : null,
      ...(await payerExtras(trx, s, deps.clock.now())),
    };
  });
}

/**
 * The payer's totals per rail. No transaction (on SQLite every transaction takes the
 * write lock): the session with its integration's rails is one statement, the lazy expiry runs
 * in a transaction of its own only for a session past its time, and the fee rules come from the
 * per-process cache (quote-inputs.ts). What a payment is charged is computed again when it starts.
 */
export async function quoteSession(deps: PaymentsDeps & { quoteInputs: QuoteInputMemory }, sessionId: string): Promise<PublicCheckoutQuote> {
  const read = await findSessionForQuote(deps.db, sessionId);
  let s = read.session;
  let dataVersion = read.dataVersion;
  if (isDue(s, deps.clock.now())) {
    await deps.db.transaction().execute((trx) => expireIfDue(trx, deps, sessionId));
    s = await findSession(deps.db, sessionId);
    dataVersion = undefined; // read again with the stamp
  }
  if (s.status !== 'open') throw notPayable(s.status);
  const rails = payableRails(deps, s);
  const ruleOf = await quoteFeeRules(deps, s.integration_id, s.currency, dataVersion);
  const surcharges: PublicCheckoutQuote['surcharges'] = {};
  for (const rail of rails) surcharges[rail] = computeFee(s.amount_minor, s.currency, ruleOf(rail));
  return { id: s.id, status: s.status, base_minor: s.amount_minor, currency: s.currency, expires_at: s.expires_at, allowed_rails: rails, surcharges };
}
