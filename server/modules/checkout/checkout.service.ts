import type { Transaction } from 'kysely';
import type { Db } from '../../db/database';
import type { CashSlipsTable, Database, PaymentAttemptsTable } from '../../db/schema';
import type { Clock } from '../../lib/clock';
import { AppError, invalid } from '../../lib/errors';
import { randomBase62, sessionMode, type IdGenerator } from '../../lib/ids';
import { newSlipReference, slipReferenceKey } from '../../lib/slip-reference';
import {
  applyTransition,
  expireIfDue,
  failIfTooManyDeclines,
  requireTransition,
  type TransitionDeps,
} from '../../domain/session-transitions';
import type { ProviderOutcome, ProviderRegistry, RailProvider } from '../../providers/types';
import { bankTransferInstructions } from '../../providers/sandbox-bank-transfer';
import { transferWindowEnd } from '../../domain/bank-transfer-window';
import { decideSandboxCard } from '../../providers/sandbox-card';
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
function providerFor(deps: CheckoutDeps, rail: Rail, mode: 'test' | 'live'): RailProvider {
  if (rail === 'card' || rail === 'cash') {
    throw new AppError('PROVIDER_RAIL_UNSUPPORTED', `rail: ${rail} is not paid through provider attempts (use the ${rail === 'cash' ? 'cash-slips' : 'card-payments'} endpoint)`);
  }
  const p = mode === 'live' ? deps.liveProviders?.[rail] : deps.providers[rail];
  if (!p) throw new AppError('RAIL_NOT_ALLOWED', `rail: ${rail} has no ${mode} provider on this deployment`);
  return p;
}

const normalisePhone = (phone: string): string => (phone.startsWith('0') ? `233${phone.slice(1)}` : phone);

export async function createProviderAttempt(
  deps: CheckoutDeps,
  sessionId: string,
  body: ProviderPaymentInitiate,
): Promise<{ status: 200 | 201; body: ProviderPaymentInitiationResponse }> {
  await expireDue(deps, sessionId);
  return deps.db.transaction().execute(async (trx) => {
    const s = await loadFresh(trx, deps, sessionId);
    const provider = providerFor(deps, body.rail, s.mode);
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
    if (same) return { status: 200 as const, body: initiationBody(same, { mode: fullInstructions(same, s).mode, rail: same.rail }, true) };

    if (s.status !== 'open') throw notPayable(s.status);
    const quote = await quoteRail(trx, s, body.rail);
    if (body.amount_minor !== quote.total_minor) {
      throw new AppError(
        'PAYMENT_AMOUNT_MISMATCH',
        `amount_minor: ${body.amount_minor} differs from the current ${body.rail} total ${quote.total_minor}; refresh the quote and use the current amount`,
      );
    }
    const now = deps.clock.now();
    const id = deps.ids.token('pa', 24);
    const started = provider.initiate({
      attemptId: id,
      sessionId: s.id,
      merchantName: s.merchant_name,
      chargeMinor: quote.total_minor,
      currency: s.currency,
      operator: operator ?? undefined,
      phone: phone ?? undefined,
      accountName: body.account_name,
      sessionExpiresAt: s.expires_at,
      now,
    });
    const row: PaymentAttemptsTable = {
      id,
      session_id: s.id,
      rail: body.rail,
      provider: started.provider,
      provider_reference: started.providerReference,
      status: started.status,
      raw_status: started.rawStatus,
      decline_reason: started.declineReason ?? null,
      base_minor: s.amount_minor,
      fee_minor: quote.fee_minor,
      amount_charged_minor: quote.total_minor,
      currency: s.currency,
      operator,
      phone,
      phone_last4: phone ? phone.slice(-4) : null,
      account_name: body.account_name ?? null,
      payment_reference: started.paymentReference ?? null,
      card_brand: null,
      card_last4: null,
      scenario: started.scenario,
      resend_count: 0,
      code_sent_at: body.rail === 'momo' ? now.toISOString() : null,
      prompt_expires_at: started.promptExpiresAt ?? (body.rail === 'bank_transfer' ? transferWindowEnd(deps, now) : null),
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
      finalized_at: null,
    };
    await trx.insertInto('payment_attempts').values(row).execute();
    // A Mobile Money prompt, or bank-transfer instructions for their window, is a confirmation
    // under way: the session waits for it (pending) and refuses other payments meanwhile.
    const cause = body.rail === 'momo' ? `momo attempt ${id} prompt sent` : `bank transfer attempt ${id} instructions issued, valid until ${row.prompt_expires_at}`;
    await requireTransition(trx, deps, s.id, { kind: 'begin_confirmation', cause });
    return { status: 201 as const, body: initiationBody(row, fullInstructions(row, s), false) };
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
 * Records what the provider said. A success confirms the payment (session → success); a
 * decline or expiry hands the session back to the payer (pending → open), fails it once
 * the declined-attempt limit is reached, and expires it if its time ran out meanwhile.
 */
export async function applyOutcome(trx: Trx, deps: CheckoutDeps, a: PaymentAttemptsTable, outcome: ProviderOutcome, cause: string): Promise<void> {
  const now = deps.clock.now().toISOString();
  if (outcome.status === 'pending') {
    if (outcome.rawStatus !== a.raw_status) {
      await trx.updateTable('payment_attempts').set({ raw_status: outcome.rawStatus, updated_at: now }).where('id', '=', a.id).where('status', '=', 'pending').execute();
    }
    return;
  }
  const moved = await trx
    .updateTable('payment_attempts')
    .set({ status: outcome.status, raw_status: outcome.rawStatus, decline_reason: outcome.declineReason ?? null, updated_at: now, finalized_at: now })
    .where('id', '=', a.id)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  if (Number(moved.numUpdatedRows) !== 1) throw new AppError('STATE_CONFLICT', 'payment attempt is no longer pending; fetch its status');
  if (outcome.status === 'succeeded') {
    await applyTransition(trx, deps, a.session_id, { kind: 'payment_confirmed', rail: a.rail, cause: `${a.rail} attempt ${a.id} ${cause}` });
    return;
  }
  if (a.rail === 'momo' || a.rail === 'bank_transfer') {
    await applyTransition(trx, deps, a.session_id, { kind: 'confirmation_abandoned', cause: `${a.rail} attempt ${a.id} ${outcome.status} (${outcome.rawStatus})` });
  }
  if (outcome.status === 'declined') await failIfTooManyDeclines(trx, deps, a.session_id);
  await expireIfDue(trx, deps, a.session_id);
}

export async function attemptStatus(deps: CheckoutDeps, sessionId: string, attemptId: string, refresh: boolean): Promise<ProviderPaymentStatusResponse> {
  return deps.db.transaction().execute(async (trx) => {
    const s = await findSession(trx, sessionId);
    const a = await findAttempt(trx, sessionId, attemptId);
    let refreshed = false;
    if (refresh && a.status === 'pending') {
      const provider = providerFor(deps, a.rail, s.mode);
      await applyOutcome(trx, deps, a, provider.refresh(a, deps.clock.now()), 'confirmed on refresh');
      refreshed = true;
    }
    await expireIfDue(trx, deps, sessionId);
    return statusBody(trx, deps, sessionId, attemptId, refreshed);
  });
}

/** How long an approval may wait for the provider's callback before the server asks the provider itself. */
export const RECONCILE_AFTER_SECONDS = 120;

/**
 * Provider reconciliation, run by the server's sweeper: an attempt whose approval the provider
 * accepted but never confirmed (no callback, `AWAITING_CALLBACK`) is refreshed from the
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
    .where('raw_status', '=', 'AWAITING_CALLBACK')
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
  return a;
}

export async function authorizeAttempt(deps: CheckoutDeps, sessionId: string, attemptId: string, code: string): Promise<ProviderPaymentStatusResponse> {
  return deps.db.transaction().execute(async (trx) => {
    const a = await pendingMomoAttempt(trx, sessionId, attemptId);
    const provider = providerFor(deps, 'momo', sessionMode(sessionId));
    if (!provider.authorize) throw new AppError('PROVIDER_RAIL_UNSUPPORTED', 'rail: momo provider takes no verification code');
    await applyOutcome(trx, deps, a, provider.authorize(a, code, deps.clock.now()), 'approved by the payer');
    return statusBody(trx, deps, sessionId, attemptId, false);
  });
}

export async function resendCode(deps: CheckoutDeps, sessionId: string, attemptId: string): Promise<ProviderPaymentStatusResponse> {
  return deps.db.transaction().execute(async (trx) => {
    const a = await pendingMomoAttempt(trx, sessionId, attemptId);
    const now = deps.clock.now();
    const wait = resendWaitSeconds(a, now);
    if (wait > 0) {
      throw new AppError('RATE_LIMITED', `a new code can be requested in ${wait} s`, { retryAfterSeconds: wait });
    }
    const provider = providerFor(deps, 'momo', sessionMode(sessionId));
    const outcome = provider.resend ? provider.resend(a, now) : { status: a.status, rawStatus: a.raw_status };
    if (outcome.status === 'pending') {
      await trx
        .updateTable('payment_attempts')
        .set({ resend_count: a.resend_count + 1, code_sent_at: now.toISOString(), raw_status: outcome.rawStatus, updated_at: now.toISOString() })
        .where('id', '=', a.id)
        .execute();
    } else {
      await applyOutcome(trx, deps, a, outcome, 'on resend');
    }
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

/** Card payment in test simulation: the number and code are used here and dropped. */
export async function payByCard(deps: CheckoutDeps, sessionId: string, card: CardInput): Promise<{ status: 201; body: CardPaymentResponse }> {
  await expireDue(deps, sessionId);
  return deps.db.transaction().execute(async (trx) => {
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
    const now = deps.clock.now();
    const decision = decideSandboxCard(card.card_number, card.expiry_month, card.expiry_year, now);
    if (!decision.ok) throw invalid(decision.field, decision.message);
    const id = deps.ids.token('pa', 24);
    const nowIso = now.toISOString();
    await trx
      .insertInto('payment_attempts')
      .values({
        id,
        session_id: s.id,
        rail: 'card',
        provider: 'sandbox_card',
        provider_reference: `CH-${randomBase62(14)}`,
        status: decision.outcome,
        raw_status: decision.outcome === 'succeeded' ? 'APPROVED' : `DECLINED:${(decision.reason ?? 'declined').toUpperCase()}`,
        decline_reason: decision.reason,
        base_minor: s.amount_minor,
        fee_minor: quote.fee_minor,
        amount_charged_minor: quote.total_minor,
        currency: s.currency,
        operator: null,
        phone: null,
        phone_last4: null,
        account_name: null,
        payment_reference: null,
        card_brand: decision.brand,
        card_last4: decision.last4,
        scenario: 'card',
        resend_count: 0,
        code_sent_at: null,
        prompt_expires_at: null,
        created_at: nowIso,
        updated_at: nowIso,
        finalized_at: nowIso,
      })
      .execute();
    if (decision.outcome === 'succeeded') {
      await requireTransition(trx, deps, s.id, { kind: 'payment_confirmed', rail: 'card', cause: `card payment ${id} approved` });
    } else {
      await failIfTooManyDeclines(trx, deps, s.id);
    }
    const after = await findSession(trx, s.id);
    return {
      status: 201 as const,
      body: {
        id,
        status: decision.outcome,
        brand: decision.brand,
        last4: decision.last4,
        amount_minor: quote.total_minor,
        currency: s.currency,
        decline_reason: decision.reason,
        session_id: s.id,
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
