import type { Transaction } from 'kysely';
import type { Db } from '../../db/database';
import type { CashSlipsTable, Database, PaymentAttemptsTable } from '../../db/schema';
import type { Clock } from '../../lib/clock';
import { AppError, invalid } from '../../lib/errors';
import { sessionMode, type IdGenerator } from '../../lib/ids';
import { newSlipReference, slipReferenceKey } from '../../lib/slip-reference';
import {
  applyTransition,
  expireIfDue,
  failIfTooManyDeclines,
  requireTransition,
  type TransitionDeps,
} from '../../domain/session-transitions';
import { IN_FLIGHT, type ProviderOutcome, type ProviderRegistry, type RailProvider } from '../../providers/types';
import { callProvider, ProviderTimeout } from '../../providers/call';
import { bankTransferInstructions } from '../../providers/sandbox-bank-transfer';
import { transferWindowEnd } from '../../domain/bank-transfer-window';
import { MOMO_OPERATORS } from '../../../shared/schemas/checkout';
import type {
  CardPaymentResponse,
  CashDepositSlipResponse,
  ProviderPaymentInitiate,
  ProviderPaymentInitiationResponse,
  ProviderPaymentStatusResponse,
  PublicCheckoutOptions,
  PublicCheckoutQuote,
  PublicCheckoutSession,
} from '../../../shared/schemas/checkout';
import { RAILS, TERMINAL_STATUSES, type Rail } from '../../../shared/schemas/common';
import { allowedRails, findAttempt, findSession, quoteRail, type SessionWithOwner } from './checkout.repository';
import { slipBody } from './slip-body';
import { payerExtras } from './payer-view';

export interface CheckoutDeps extends TransitionDeps {
  db: Db;
  clock: Clock;
  ids: IdGenerator;
  /** Sandbox providers: test sessions only. */
  providers: ProviderRegistry;
  /** BANK_TRANSFER_WINDOW_S (server/config.ts); its default without one. */
  config?: { readonly bankTransferWindowS: number };
  /** Real connectors: live sessions only (none ships yet, so live offers only cash). */
  liveProviders?: ProviderRegistry;
  /** Provider call timeout in ms (server/providers/call.ts). */
  providerTimeoutMs?: number | undefined;
}

type Trx = Transaction<Database>;

/** Seconds a payer waits between two Mobile Money code resends. */
export const RESEND_COOLDOWN_SECONDS = 30;

const RAIL_LABELS: Record<Rail, string> = {
  momo: 'Mobile Money',
  card: 'Card',
  bank_transfer: 'Bank transfer',
  cash: 'Cash at a bank branch',
};
const OPERATOR_LABELS: Record<string, string> = { mtn: 'MTN MoMo', telecel: 'Telecel Cash', airteltigo: 'AirtelTigo Money' };

export const notPayable = (status: string) =>
  new AppError('SESSION_NOT_PAYABLE', `session is ${status}, not open for payment; refresh the session before continuing`);

/**
 * Lazy expiry in a transaction of its own: a request that then fails (409 SESSION_NOT_PAYABLE
 * on an expired session) must not roll the expiry, and its event, back.
 */
export async function expireDue(deps: CheckoutDeps, sessionId: string): Promise<void> {
  await deps.db.transaction().execute((trx) => expireIfDue(trx, deps, sessionId));
}

/** Loads a session inside the transaction, expiring it first when its time has passed. */
export async function loadFresh(trx: Trx, deps: CheckoutDeps, sessionId: string): Promise<SessionWithOwner> {
  const s = await findSession(trx, sessionId);
  // Read again only when the session did expire here; an unexpired one is returned as read.
  if (s.status === 'open' && s.expires_at <= deps.clock.now().toISOString() && (await expireIfDue(trx, deps, sessionId))) {
    return findSession(trx, sessionId);
  }
  return s;
}

/**
 * The rails a payer may use: the integration's, and for a live session only those a real
 * connector serves (cash is collected by staff, so it needs none). A sandbox provider never
 * serves live money, and the card test simulation is test-only.
 */
function payableRails(deps: CheckoutDeps, s: SessionWithOwner): Rail[] {
  const rails = allowedRails(s);
  return s.mode === 'test' ? rails : rails.filter((r) => r === 'cash' || (r !== 'card' && deps.liveProviders?.[r] !== undefined));
}

function requireRail(deps: CheckoutDeps, s: SessionWithOwner, rail: Rail): void {
  if (!allowedRails(s).includes(rail)) throw new AppError('RAIL_NOT_ALLOWED', `rail: ${rail} is not enabled for this merchant`);
  if (!payableRails(deps, s).includes(rail)) throw new AppError('RAIL_NOT_ALLOWED', `rail: ${rail} has no live provider on this deployment`);
}

// ---------------------------------------------------------------- options, session, quote

export async function checkoutOptions(db: Db): Promise<PublicCheckoutOptions> {
  const banks = await db.selectFrom('banks').select(['id', 'name', 'code']).where('active', '=', 1).orderBy('name').execute();
  const branches = await db.selectFrom('branches').select(['id', 'bank_id', 'name', 'code']).where('active', '=', 1).orderBy('name').execute();
  return {
    payment_methods: RAILS.map((r) => ({ value: r, label: RAIL_LABELS[r] })),
    branch_payment_methods: [{ value: 'cash', label: RAIL_LABELS.cash }],
    banks: banks.map((b) => ({
      ...b,
      branches: branches.filter((br) => br.bank_id === b.id).map(({ id, name, code }) => ({ id, name, code })),
    })),
    momo_operators: MOMO_OPERATORS.map((o) => ({ value: o, label: OPERATOR_LABELS[o] ?? o })),
  };
}

export async function publicSession(deps: CheckoutDeps, sessionId: string): Promise<PublicCheckoutSession> {
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
      paid_rail: (s.paid_rail as Rail | null) ?? null,
      pending_attempt: pending
        ? { attempt_reference: pending.id, rail: pending.rail, status: pending.status, instructions: fullInstructions(pending, s) }
        : null,
      ...(await payerExtras(trx, s, deps.clock.now())),
    };
  });
}

export async function quoteSession(deps: CheckoutDeps, sessionId: string): Promise<PublicCheckoutQuote> {
  await expireDue(deps, sessionId);
  return deps.db.transaction().execute(async (trx) => {
    const s = await loadFresh(trx, deps, sessionId);
    if (s.status !== 'open') throw notPayable(s.status);
    const rails = payableRails(deps, s);
    const surcharges: PublicCheckoutQuote['surcharges'] = {};
    for (const rail of rails) surcharges[rail] = await quoteRail(trx, s, rail);
    return { id: s.id, status: s.status, base_minor: s.amount_minor, currency: s.currency, expires_at: s.expires_at, allowed_rails: rails, surcharges };
  });
}

// ---------------------------------------------------------------- provider attempts

function fullInstructions(a: PaymentAttemptsTable, s: { merchant_name: string; expires_at: string }): Record<string, unknown> {
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

/** The provider of the session's mode: sandbox for test, a real connector for live (never the sandbox). */
function railProvider(deps: CheckoutDeps, rail: Rail, mode: 'test' | 'live'): RailProvider {
  const p = mode === 'live' ? deps.liveProviders?.[rail] : deps.providers[rail];
  if (!p) throw new AppError('RAIL_NOT_ALLOWED', `rail: ${rail} has no ${mode} provider on this deployment`);
  return p;
}

const normalisePhone = (phone: string): string => (phone.startsWith('0') ? `233${phone.slice(1)}` : phone);

const lostRace = () => new AppError('STATE_CONFLICT', 'payment attempt is no longer pending; fetch its status');

/**
 * Step (a) of every provider call: a short write transaction commits the pending attempt and
 * moves the session to `pending`, so nothing else can be paid while the provider is asked
 * (b, outside any transaction); step (c) records the answer with a conditional update.
 */
async function beginAttempt(trx: Trx, deps: CheckoutDeps, row: PaymentAttemptsTable, cause: string): Promise<void> {
  await trx.insertInto('payment_attempts').values(row).execute();
  await requireTransition(trx, deps, row.session_id, { kind: 'begin_confirmation', cause });
}

/**
 * A provider that refused the payment (a 4xx, or down before it started) never had it: the
 * attempt is removed and the session handed back to the payer, as if nothing was recorded.
 * A timeout is not a refusal: its attempt stays pending for the reconcile job.
 */
async function discardRefused(deps: CheckoutDeps, a: PaymentAttemptsTable, err: unknown): Promise<never> {
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
function pendingRow(deps: CheckoutDeps, s: SessionWithOwner, quote: { fee_minor: number; total_minor: number }, rail: Rail, provider: string, rawStatus: string): PaymentAttemptsTable {
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

export async function createProviderAttempt(
  deps: CheckoutDeps,
  sessionId: string,
  body: ProviderPaymentInitiate,
): Promise<{ status: 200 | 201; body: ProviderPaymentInitiationResponse }> {
  if (body.rail === 'card' || body.rail === 'cash') {
    throw new AppError('PROVIDER_RAIL_UNSUPPORTED', `rail: ${body.rail} is not paid through provider attempts (use the ${body.rail === 'cash' ? 'cash-slips' : 'card-payments'} endpoint)`);
  }
  await expireDue(deps, sessionId);
  const begun = await deps.db.transaction().execute(async (trx) => {
    const s = await loadFresh(trx, deps, sessionId);
    const provider = railProvider(deps, body.rail, s.mode);
    requireRail(deps, s, body.rail);
    if (body.rail === 'momo') {
      if (!body.operator) throw invalid('operator', `is required for momo: one of ${MOMO_OPERATORS.join(', ')}`);
      if (!body.phone) throw invalid('phone', 'is required for momo: a Ghana number, 0XXXXXXXXX or 233XXXXXXXXX');
    }
    const phone = body.rail === 'momo' && body.phone ? normalisePhone(body.phone) : null;
    const operator = body.rail === 'momo' ? (body.operator ?? null) : null;

    // A retry of the same request while its attempt is pending replays it, whatever the session status.
    const same = await trx
      .selectFrom('payment_attempts')
      .selectAll()
      .where('session_id', '=', s.id)
      .where('status', '=', 'pending')
      .where('rail', '=', body.rail)
      .where('amount_charged_minor', '=', body.amount_minor)
      .where('operator', 'is', operator)
      .where('phone', 'is', phone)
      .orderBy('created_at', 'desc')
      .executeTakeFirst();
    if (same) return { replay: initiationBody(same, { mode: fullInstructions(same, s).mode, rail: same.rail }, true) };

    if (s.status !== 'open') throw notPayable(s.status);
    const quote = await quoteRail(trx, s, body.rail);
    if (body.amount_minor !== quote.total_minor) {
      throw new AppError(
        'PAYMENT_AMOUNT_MISMATCH',
        `amount_minor: ${body.amount_minor} differs from the current ${body.rail} total ${quote.total_minor}; refresh the quote and use the current amount`,
      );
    }
    const now = deps.clock.now();
    const row: PaymentAttemptsTable = {
      ...pendingRow(deps, s, quote, body.rail, provider.name, IN_FLIGHT.initiating),
      operator,
      phone,
      phone_last4: phone ? phone.slice(-4) : null,
      account_name: body.account_name ?? null,
      code_sent_at: body.rail === 'momo' ? now.toISOString() : null,
      prompt_expires_at: body.rail === 'bank_transfer' ? transferWindowEnd(deps, now) : null,
    };
    // A Mobile Money prompt, or bank-transfer instructions for their window, is a confirmation
    // under way: the session waits for it (pending) and refuses other payments meanwhile.
    const cause = body.rail === 'momo' ? `momo attempt ${row.id} prompt sent` : `bank transfer attempt ${row.id} instructions issued, valid until ${row.prompt_expires_at}`;
    await beginAttempt(trx, deps, row, cause);
    return { row, s, provider };
  });
  if (begun.replay) return { status: 200, body: begun.replay };
  const { row, s, provider } = begun;
  if (!provider.initiate) throw new AppError('PROVIDER_RAIL_UNSUPPORTED', `rail: ${row.rail} provider starts no payment attempts`);
  const initiate = provider.initiate.bind(provider);
  const started = await callProvider(deps, () =>
    initiate({
      attemptId: row.id,
      sessionId: s.id,
      merchantName: s.merchant_name,
      chargeMinor: row.amount_charged_minor,
      currency: s.currency,
      operator: row.operator ?? undefined,
      phone: row.phone ?? undefined,
      accountName: body.account_name,
      sessionExpiresAt: s.expires_at,
      now: new Date(row.created_at),
    }),
  ).catch((err: unknown) => discardRefused(deps, row, err));
  return deps.db.transaction().execute(async (trx) => {
    const moved = await trx
      .updateTable('payment_attempts')
      .set({
        provider: started.provider,
        provider_reference: started.providerReference,
        scenario: started.scenario,
        raw_status: started.rawStatus,
        payment_reference: started.paymentReference ?? null,
        prompt_expires_at: started.promptExpiresAt ?? row.prompt_expires_at,
        updated_at: deps.clock.now().toISOString(),
      })
      .where('id', '=', row.id)
      .where('status', '=', 'pending')
      .where('raw_status', '=', IN_FLIGHT.initiating)
      .executeTakeFirst();
    if (Number(moved.numUpdatedRows) !== 1) throw lostRace();
    const a = await findAttempt(trx, s.id, row.id);
    if (started.status !== 'pending') await applyOutcome(trx, deps, a, started, `${a.rail} attempt ${a.id} ${started.status} at initiation`);
    const after = await findAttempt(trx, s.id, row.id);
    return { status: 201 as const, body: initiationBody(after, fullInstructions(after, s), false) };
  });
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

/** Seconds until a new Mobile Money code may be requested (0 when it may now). */
function resendWaitSeconds(a: PaymentAttemptsTable, now: Date): number {
  if (!a.code_sent_at) return 0;
  return Math.max(0, Math.ceil((new Date(a.code_sent_at).getTime() + RESEND_COOLDOWN_SECONDS * 1000 - now.getTime()) / 1000));
}

function initiationBody(a: PaymentAttemptsTable, instructions: Record<string, unknown>, replayed: boolean): ProviderPaymentInitiationResponse {
  return { ...attemptFields(a), instructions: instructions as ProviderPaymentInitiationResponse['instructions'], replayed };
}

export async function statusBody(trx: Trx, deps: CheckoutDeps, sessionId: string, attemptId: string, refreshed: boolean): Promise<ProviderPaymentStatusResponse> {
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
export async function applyOutcome(trx: Trx, deps: CheckoutDeps, a: PaymentAttemptsTable, outcome: ProviderOutcome, successCause: string): Promise<boolean> {
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

export async function attemptStatus(deps: CheckoutDeps, sessionId: string, attemptId: string, refresh: boolean): Promise<ProviderPaymentStatusResponse> {
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

/** How long an approval may wait for the provider's callback before the server asks the provider itself. */
export const RECONCILE_AFTER_SECONDS = 120;

/**
 * Provider reconciliation, run by the server's sweeper: an attempt whose approval the provider
 * accepted but never confirmed (no callback, `AWAITING_CALLBACK`), or whose provider call never
 * answered (a timeout or a crash: INITIATING, AUTHORIZING, CHARGING), is refreshed from the
 * provider once it has waited RECONCILE_AFTER_SECONDS, so a payer who closed the page still
 * gets a final session. A provider that is down is asked again on the next sweep.
 * Returns how many attempts reached a final status.
 */
export async function reconcileStuckAttempts(deps: CheckoutDeps): Promise<number> {
  const cutoff = new Date(deps.clock.now().getTime() - RECONCILE_AFTER_SECONDS * 1000).toISOString();
  const stuck = await deps.db
    .selectFrom('payment_attempts')
    .select(['id', 'session_id'])
    .where('status', '=', 'pending')
    .where('raw_status', 'in', ['AWAITING_CALLBACK', ...Object.values(IN_FLIGHT)])
    .where('updated_at', '<=', cutoff)
    .limit(100)
    .execute();
  let settled = 0;
  for (const a of stuck) {
    try {
      if ((await attemptStatus(deps, a.session_id, a.id, true)).status !== 'pending') settled++;
    } catch (err) {
      if (!(err instanceof AppError)) throw err; // provider unavailable or the attempt moved meanwhile: next sweep
    }
  }
  return settled;
}

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

/** Step (a) for a call on an existing attempt: marks it as ours, so a second call meanwhile gets 409. */
async function claimAttempt(trx: Trx, a: PaymentAttemptsTable, set: Partial<PaymentAttemptsTable>): Promise<void> {
  const moved = await trx.updateTable('payment_attempts').set(set).where('id', '=', a.id).where('status', '=', 'pending').where('raw_status', '=', a.raw_status).executeTakeFirst();
  if (Number(moved.numUpdatedRows) !== 1) throw new AppError('PAYMENT_ATTEMPT_PENDING', 'another call for this payment attempt is under way: poll the status');
}

/** Undoes a claim after a definite provider error (not a timeout, whose outcome is unknown); then rethrows. */
async function releaseClaim(deps: CheckoutDeps, a: PaymentAttemptsTable, claimedAt: string, err: unknown): Promise<never> {
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

export async function authorizeAttempt(deps: CheckoutDeps, sessionId: string, attemptId: string, code: string): Promise<ProviderPaymentStatusResponse> {
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

export async function resendCode(deps: CheckoutDeps, sessionId: string, attemptId: string): Promise<ProviderPaymentStatusResponse> {
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
      await trx.updateTable('payment_attempts').set({ resend_count: a.resend_count, code_sent_at: a.code_sent_at }).where('id', '=', a.id).where('status', '=', 'pending').execute();
    }
    if (!(await applyOutcome(trx, deps, current, outcome, `momo attempt ${a.id} confirmed on resend`))) throw lostRace();
    return statusBody(trx, deps, sessionId, attemptId, false);
  });
}

// ---------------------------------------------------------------- card (test simulation)

export interface CardInput {
  amount_minor: number;
  card_number: string;
  expiry_month: number;
  expiry_year: number;
}

/**
 * Card payment in test simulation: the number and code go to the provider and are dropped.
 * The charge holds the session (pending) like any other provider call, so two charges at
 * once cannot both reach the provider.
 */
export async function payByCard(deps: CheckoutDeps, sessionId: string, card: CardInput): Promise<{ status: 201; body: CardPaymentResponse }> {
  await expireDue(deps, sessionId);
  const { row, charge } = await deps.db.transaction().execute(async (trx) => {
    const s = await loadFresh(trx, deps, sessionId);
    requireRail(deps, s, 'card');
    if (s.card_collection_mode !== 'test_simulation') {
      throw new AppError('PROVIDER_RAIL_UNSUPPORTED', 'rail: card is collected by the direct card provider for this integration, not the test simulation');
    }
    if (s.status !== 'open') throw notPayable(s.status);
    const quote = await quoteRail(trx, s, 'card');
    if (card.amount_minor !== quote.total_minor) {
      throw new AppError('PAYMENT_AMOUNT_MISMATCH', `amount_minor: ${card.amount_minor} differs from the current card total ${quote.total_minor}; refresh the quote`);
    }
    const provider = railProvider(deps, 'card', s.mode);
    if (!provider.charge) throw new AppError('PROVIDER_RAIL_UNSUPPORTED', 'rail: card provider takes no card charges');
    const row = { ...pendingRow(deps, s, quote, 'card', provider.name, IN_FLIGHT.charging), scenario: 'card' };
    await beginAttempt(trx, deps, row, `card payment ${row.id} sent to the card provider`);
    return { row, charge: provider.charge.bind(provider) };
  });
  const input = { attemptId: row.id, chargeMinor: row.amount_charged_minor, currency: row.currency, cardNumber: card.card_number, expiryMonth: card.expiry_month, expiryYear: card.expiry_year };
  const result = await callProvider(deps, () => charge({ ...input, now: new Date(row.created_at) })).catch((err: unknown) => discardRefused(deps, row, err));
  return deps.db.transaction().execute(async (trx) => {
    await trx
      .updateTable('payment_attempts')
      .set({ provider_reference: result.providerReference, card_brand: result.brand, card_last4: result.last4 })
      .where('id', '=', row.id)
      .where('status', '=', 'pending')
      .execute();
    const current = await findAttempt(trx, sessionId, row.id);
    if (!(await applyOutcome(trx, deps, current, result, `card payment ${row.id} approved`))) throw lostRace();
    const after = await findSession(trx, sessionId);
    return {
      status: 201 as const,
      body: {
        id: row.id,
        status: result.status === 'succeeded' ? 'succeeded' : 'declined',
        brand: result.brand,
        last4: result.last4,
        amount_minor: row.amount_charged_minor,
        currency: row.currency,
        decline_reason: result.declineReason ?? null,
        session_id: sessionId,
        session_status: after.status,
      },
    };
  });
}

// ---------------------------------------------------------------- cash slips

/**
 * Issues the session's deposit slip. One payable slip per open session (also enforced by a
 * unique index); a retry returns it with `replayed: true`. The slip lives as long as the
 * session (expires_at equals the session's).
 */
export async function createCashSlip(deps: CheckoutDeps, sessionId: string, amountMinor: number): Promise<{ status: 200 | 201; body: CashDepositSlipResponse }> {
  await expireDue(deps, sessionId);
  return deps.db.transaction().execute(async (trx) => {
    const s = await loadFresh(trx, deps, sessionId);
    requireRail(deps, s, 'cash');
    if (s.status !== 'open') throw notPayable(s.status);
    const quote = await quoteRail(trx, s, 'cash');
    if (amountMinor !== quote.total_minor) {
      throw new AppError('PAYMENT_AMOUNT_MISMATCH', `amount_minor: ${amountMinor} differs from the current cash total ${quote.total_minor}; refresh the quote`);
    }
    const now = deps.clock.now();
    const nowIso = now.toISOString();
    const live = await trx
      .selectFrom('cash_slips')
      .selectAll()
      .where('session_id', '=', s.id)
      .where('status', 'in', ['active', 'under_review'])
      .executeTakeFirst();
    if (live && live.expires_at > nowIso) return { status: 200 as const, body: slipBody(live, s, true, now) };
    if (live) await trx.updateTable('cash_slips').set({ status: 'expired', updated_at: nowIso }).where('id', '=', live.id).execute();
    // Unique on the typed-lookup key, which also covers the references of the older alphabet.
    let reference = newSlipReference();
    while (await trx.selectFrom('cash_slips').select('id').where('reference_key', '=', slipReferenceKey(reference)).executeTakeFirst()) reference = newSlipReference();
    const slip: CashSlipsTable = {
      id: deps.ids.uuid(),
      token: deps.ids.token('slp', 32),
      reference,
      reference_key: slipReferenceKey(reference),
      session_id: s.id,
      amount_minor: quote.total_minor,
      base_minor: s.amount_minor,
      fee_minor: quote.fee_minor,
      currency: s.currency,
      status: 'active',
      expires_at: s.expires_at,
      created_at: nowIso,
      updated_at: nowIso,
    };
    await trx.insertInto('cash_slips').values(slip).execute();
    return { status: 201 as const, body: slipBody(slip, s, false, now) };
  });
}
