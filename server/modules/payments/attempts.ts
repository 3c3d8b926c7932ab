import type { Transaction } from 'kysely';
import { columnList, precompiled, rowOf } from '../../db/precompiled';
import type { Database, PaymentAttemptsTable } from '../../db/schema';
import { AppError } from '../../lib/errors';
import { applyTransition, expireIfDue, failIfTooManyDeclines, requireTransition } from '../../domain/session-transitions';
import { callProvider, ProviderTimeout } from '../../providers/call';
import type { ProviderOutcome } from '../../providers/types';
import { bankTransferInstructions } from '../../providers/sandbox-bank-transfer';
import type { ProviderPaymentInitiationResponse, ProviderPaymentStatusResponse } from '../../../shared/schemas/checkout';
import { TERMINAL_STATUSES, type Rail } from '../../../shared/schemas/common';
import { findAttempt, findSession, type SessionWithOwner } from './payments.repository';
import { railProvider, type PaymentsDeps } from './rails';

/**
 * The payment attempt's moves, shared by every rail. No provider is called inside a
 * transaction: (a) a short write transaction commits the pending attempt (beginAttempt,
 * claimAttempt); (b) the provider is called with none open (callProvider, with its timeout);
 * (c) applyOutcome records the answer with a conditional update and moves the session.
 */
type Trx = Transaction<Database>;

/** Seconds a payer waits between two Mobile Money code resends. */
export const RESEND_COOLDOWN_SECONDS = 30;

export function fullInstructions(a: PaymentAttemptsTable, s: { merchant_name: string; expires_at: string }): Record<string, unknown> {
  if (a.rail === 'momo') {
    return { mode: 'mobile_money_prompt', rail: a.rail, amount_minor: a.amount_charged_minor, currency: a.currency, operator: a.operator, phone_last4: a.phone_last4 };
  }
  if (a.rail === 'bank_transfer') {
    return bankTransferInstructions({
      merchantName: s.merchant_name,
      paymentReference: a.payment_reference,
      chargeMinor: a.amount_charged_minor,
      currency: a.currency,
      expiresAt: a.prompt_expires_at ?? s.expires_at, // the transfer window's end
    });
  }
  return { mode: a.rail, rail: a.rail };
}

export const lostRace = () => new AppError('STATE_CONFLICT', 'payment attempt is no longer pending; fetch its status');

/**
 * Step (a) of every provider call: a short write transaction commits the pending attempt and
 * moves the session to `pending`, so nothing else can be paid while the provider is asked
 * (b, outside any transaction); step (c) records the answer with a conditional update.
 */
const ATTEMPT_COLUMNS = columnList<PaymentAttemptsTable>()([
  'id', 'session_id', 'rail', 'provider', 'provider_reference', 'status', 'raw_status', 'decline_reason', 'base_minor', 'fee_minor',
  'amount_charged_minor', 'currency', 'operator', 'phone', 'phone_last4', 'account_name', 'payment_reference', 'card_brand', 'card_last4',
  'scenario', 'resend_count', 'code_sent_at', 'prompt_expires_at', 'created_at', 'updated_at', 'finalized_at',
]);
// momo_attempt_create's insert, compiled once (issue 16).
const insertAttempt = precompiled((db, p: PaymentAttemptsTable) => db.insertInto('payment_attempts').values(rowOf(p, ATTEMPT_COLUMNS)));

export async function beginAttempt(trx: Trx, deps: PaymentsDeps, row: PaymentAttemptsTable, cause: string): Promise<void> {
  await insertAttempt(trx, row);
  await requireTransition(trx, deps, row.session_id, { kind: 'begin_confirmation', cause });
}

/**
 * A provider that refused the payment (a 4xx, or down before it started) never had it: the
 * attempt is removed and the session handed back to the payer, as if nothing was recorded.
 * A timeout is not a refusal: its attempt stays pending for the reconcile job.
 */
export async function discardRefused(deps: PaymentsDeps, a: PaymentAttemptsTable, err: unknown): Promise<never> {
  if (!(err instanceof ProviderTimeout)) {
    await deps.db.transaction().execute(async (trx) => {
      const gone = await trx.deleteFrom('payment_attempts').where('id', '=', a.id).where('status', '=', 'pending').where('raw_status', '=', a.raw_status).executeTakeFirst();
      if (Number(gone.numDeletedRows) === 1) {
        await applyTransition(trx, deps, a.session_id, { kind: 'confirmation_abandoned', cause: `${a.rail} attempt ${a.id} refused by the provider` });
      }
    });
  }
  throw err;
}

/** A new attempt row, pending while its provider call (`rawStatus`) is under way. */
export function pendingRow(deps: PaymentsDeps, s: SessionWithOwner, quote: { fee_minor: number; total_minor: number }, rail: Rail, provider: string, rawStatus: string): PaymentAttemptsTable {
  const now = deps.clock.now().toISOString();
  return {
    id: deps.ids.token('pa', 24),
    session_id: s.id,
    rail,
    provider,
    provider_reference: '',
    status: 'pending',
    raw_status: rawStatus,
    decline_reason: null,
    base_minor: s.amount_minor,
    fee_minor: quote.fee_minor,
    amount_charged_minor: quote.total_minor,
    currency: s.currency,
    operator: null,
    phone: null,
    phone_last4: null,
    account_name: null,
    payment_reference: null,
    card_brand: null,
    card_last4: null,
    scenario: 'pending',
    resend_count: 0,
    code_sent_at: null,
    prompt_expires_at: null,
    created_at: now,
    updated_at: now,
    finalized_at: null,
  };
}

/** Step (a) for a call on an existing attempt: marks it as ours, so a second call meanwhile gets 409. */
export async function claimAttempt(trx: Trx, a: PaymentAttemptsTable, set: Partial<PaymentAttemptsTable>): Promise<void> {
  const moved = await trx.updateTable('payment_attempts').set(set).where('id', '=', a.id).where('status', '=', 'pending').where('raw_status', '=', a.raw_status).executeTakeFirst();
  if (Number(moved.numUpdatedRows) !== 1) throw new AppError('PAYMENT_ATTEMPT_PENDING', 'another call for this payment attempt is under way: poll the status');
}

/** Undoes a claim after a definite provider error (not a timeout, whose outcome is unknown); then rethrows. */
export async function releaseClaim(deps: PaymentsDeps, a: PaymentAttemptsTable, claimedAt: string, err: unknown): Promise<never> {
  if (!(err instanceof ProviderTimeout)) {
    await deps.db
      .updateTable('payment_attempts')
      .set({ raw_status: a.raw_status, code_sent_at: a.code_sent_at, resend_count: a.resend_count, updated_at: a.updated_at })
      .where('id', '=', a.id)
      .where('status', '=', 'pending')
      .where('updated_at', '=', claimedAt)
      .execute();
  }
  throw err;
}

/** The fields every attempt response (initiation and status) starts with. */
const attemptFields = (a: PaymentAttemptsTable) => ({
  attempt_reference: a.id,
  provider: a.provider,
  provider_reference: a.provider_reference,
  rail: a.rail,
  status: a.status,
  amount_charged_minor: a.amount_charged_minor,
  currency: a.currency,
});

export /** Seconds until a new Mobile Money code may be requested (0 when it may now). */
function resendWaitSeconds(a: PaymentAttemptsTable, now: Date): number {
  if (!a.code_sent_at) return 0;
  return Math.max(0, Math.ceil((new Date(a.code_sent_at).getTime() + RESEND_COOLDOWN_SECONDS * 1000 - now.getTime()) / 1000));
}

export function initiationBody(a: PaymentAttemptsTable, instructions: Record<string, unknown>, replayed: boolean): ProviderPaymentInitiationResponse {
  return { ...attemptFields(a), instructions: instructions as ProviderPaymentInitiationResponse['instructions'], replayed };
}

export async function statusBody(trx: Trx, deps: PaymentsDeps, sessionId: string, attemptId: string, refreshed: boolean): Promise<ProviderPaymentStatusResponse> {
  const a = await findAttempt(trx, sessionId, attemptId);
  const s = await findSession(trx, sessionId);
  const cooldownLeft = a.status === 'pending' && a.rail === 'momo' ? resendWaitSeconds(a, deps.clock.now()) : 0;
  return {
    ...attemptFields(a),
    session_id: s.id,
    session_status: s.status,
    session_finalized_at: s.finalized_at,
    raw_status: a.raw_status,
    refreshed,
    finalized: TERMINAL_STATUSES.includes(s.status),
    decline_reason: a.decline_reason,
    resend_available_in_seconds: cooldownLeft,
  };
}

/**
 * Step (c): records what the provider said, only while the attempt is still pending (false
 * when it was settled meanwhile). A success confirms the payment (session → success); a
 * decline or expiry hands the session back to the payer (pending → open), fails it once the
 * declined-attempt limit is reached, and expires it if its time ran out meanwhile.
 */
export async function applyOutcome(trx: Trx, deps: PaymentsDeps, a: PaymentAttemptsTable, outcome: ProviderOutcome, successCause: string): Promise<boolean> {
  const now = deps.clock.now().toISOString();
  if (outcome.status === 'pending') {
    if (outcome.rawStatus === a.raw_status) return a.status === 'pending';
    const moved = await trx.updateTable('payment_attempts').set({ raw_status: outcome.rawStatus, updated_at: now }).where('id', '=', a.id).where('status', '=', 'pending').executeTakeFirst();
    return Number(moved.numUpdatedRows) === 1;
  }
  const moved = await trx
    .updateTable('payment_attempts')
    .set({ status: outcome.status, raw_status: outcome.rawStatus, decline_reason: outcome.declineReason ?? null, updated_at: now, finalized_at: now })
    .where('id', '=', a.id)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  if (Number(moved.numUpdatedRows) !== 1) return false;
  if (outcome.status === 'succeeded') {
    await applyTransition(trx, deps, a.session_id, { kind: 'payment_confirmed', rail: a.rail, cause: successCause });
    return true;
  }
  await applyTransition(trx, deps, a.session_id, { kind: 'confirmation_abandoned', cause: `${a.rail} attempt ${a.id} ${outcome.status} (${outcome.rawStatus})` });
  if (outcome.status === 'declined') await failIfTooManyDeclines(trx, deps, a.session_id);
  await expireIfDue(trx, deps, a.session_id);
  return true;
}

export async function attemptStatus(deps: PaymentsDeps, sessionId: string, attemptId: string, refresh: boolean): Promise<ProviderPaymentStatusResponse> {
  let outcome: ProviderOutcome | undefined;
  if (refresh) {
    const s = await findSession(deps.db, sessionId);
    const a = await findAttempt(deps.db, sessionId, attemptId);
    if (a.status === 'pending') {
      const provider = railProvider(deps, a.rail, s.mode);
      outcome = await callProvider(deps, () => provider.refresh(a, deps.clock.now()));
    }
  }
  return deps.db.transaction().execute(async (trx) => {
    await findSession(trx, sessionId);
    const a = await findAttempt(trx, sessionId, attemptId);
    // Settled by someone else since the provider was asked: the status read says so.
    if (outcome) await applyOutcome(trx, deps, a, outcome, `${a.rail} attempt ${a.id} confirmed on refresh`);
    await expireIfDue(trx, deps, sessionId);
    return statusBody(trx, deps, sessionId, attemptId, outcome !== undefined);
  });
}

