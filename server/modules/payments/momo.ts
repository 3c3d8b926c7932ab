import type { Transaction } from 'kysely';
import type { Database, PaymentAttemptsTable } from '../../db/schema';
import { AppError } from '../../lib/errors';
import { recordProgress } from '../../domain/attempt-transitions';
import { sessionMode } from '../../lib/ids';
import { callProvider } from '../../providers/call';
import { IN_FLIGHT } from '../../providers/types';
import type { ProviderPaymentStatusResponse } from '../../../shared/schemas/checkout';
import { findAttempt, findSession } from './payments.repository';
import { railProvider, type PaymentsDeps } from './rails';
import { applyOutcome, claimAttempt, lostRace, releaseClaim, resendWaitSeconds, statusBody } from './attempts';

/** The payer's Mobile Money calls on a pending prompt: authorize with the code, resend the code. */
type Trx = Transaction<Database>;

async function pendingMomoAttempt(trx: Trx, sessionId: string, attemptId: string): Promise<PaymentAttemptsTable> {
  await findSession(trx, sessionId);
  const a = await findAttempt(trx, sessionId, attemptId);
  if (a.rail !== 'momo') throw new AppError('PROVIDER_RAIL_UNSUPPORTED', `rail: ${a.rail} attempts take no verification code`);
  if (a.status !== 'pending') throw new AppError('STATE_CONFLICT', `payment attempt is ${a.status}, no longer pending; start a new attempt if the session is open`);
  if (a.raw_status === 'AWAITING_CALLBACK') {
    throw new AppError('PAYMENT_ATTEMPT_PENDING', 'the payer already approved; the provider is confirming the payment: poll the status with refresh=1');
  }
  if (a.raw_status === IN_FLIGHT.initiating || a.raw_status === IN_FLIGHT.authorizing) {
    throw new AppError('PAYMENT_ATTEMPT_PENDING', 'the provider is still answering an earlier call for this attempt: poll the status with refresh=1');
  }
  return a;
}

export async function authorizeAttempt(deps: PaymentsDeps, sessionId: string, attemptId: string, code: string): Promise<ProviderPaymentStatusResponse> {
  const now = deps.clock.now();
  const { a, authorize } = await deps.db.transaction().execute(async (trx) => {
    const a = await pendingMomoAttempt(trx, sessionId, attemptId);
    const provider = railProvider(deps, 'momo', sessionMode(sessionId));
    if (!provider.authorize) throw new AppError('PROVIDER_RAIL_UNSUPPORTED', 'rail: momo provider takes no verification code');
    await claimAttempt(trx, a, { raw_status: IN_FLIGHT.authorizing, updated_at: now.toISOString() });
    return { a, authorize: provider.authorize.bind(provider) };
  });
  const outcome = await callProvider(deps, () => authorize(a, code, now)).catch((err: unknown) => releaseClaim(deps, a, now.toISOString(), err));
  return deps.db.transaction().execute(async (trx) => {
    const current = await findAttempt(trx, sessionId, attemptId);
    if (!(await applyOutcome(trx, deps, current, outcome, `momo attempt ${a.id} approved by the payer`))) throw lostRace();
    return statusBody(trx, deps, sessionId, attemptId, false);
  });
}

export async function resendCode(deps: PaymentsDeps, sessionId: string, attemptId: string): Promise<ProviderPaymentStatusResponse> {
  const now = deps.clock.now();
  const nowIso = now.toISOString();
  const { a, provider } = await deps.db.transaction().execute(async (trx) => {
    const a = await pendingMomoAttempt(trx, sessionId, attemptId);
    const wait = resendWaitSeconds(a, now);
    if (wait > 0) {
      throw new AppError('RATE_LIMITED', `a new code can be requested in ${wait} s`, { retryAfterSeconds: wait });
    }
    const provider = railProvider(deps, 'momo', sessionMode(sessionId));
    // The cooldown slot is taken before the provider is asked: two resends at once send one code.
    await claimAttempt(trx, a, { resend_count: a.resend_count + 1, code_sent_at: nowIso, updated_at: nowIso });
    return { a, provider };
  });
  const resend = provider.resend?.bind(provider);
  const outcome = resend
    ? await callProvider(deps, () => resend(a, now)).catch((err: unknown) => releaseClaim(deps, a, nowIso, err))
    : { status: a.status, rawStatus: a.raw_status };
  return deps.db.transaction().execute(async (trx) => {
    const current = await findAttempt(trx, sessionId, attemptId);
    if (outcome.status !== 'pending') {
      // No code went out: the attempt keeps its earlier resend count.
      await recordProgress(trx, a.id, { resend_count: a.resend_count, code_sent_at: a.code_sent_at });
    }
    if (!(await applyOutcome(trx, deps, current, outcome, `momo attempt ${a.id} confirmed on resend`))) throw lostRace();
    return statusBody(trx, deps, sessionId, attemptId, false);
  });
}

