import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../support/app';
import { post } from '../support/http';
import {
  CHECKOUT,
  authorize,
  events,
  expectError,
  openSession,
  publicSession,
  quoteTotal,
  setAllowedRails,
  startAttempt,
  startMomo,
  status,
} from '../support/checkout';
import type { PaymentsDeps } from '../../server/modules/payments/payments.service';
import { confirmBankTransfer } from '../../server/modules/payments/bank-transfer';
import { sweep } from '../../server/jobs/sweeper';
import { AppError } from '../../server/lib/errors';
import { randomIds } from '../../server/lib/ids';
import { sandboxProviders } from '../../server/providers/index';
import type { CreatedIntegration } from '../../server/modules/integrations/integrations.service';

describe('hosted checkout: bank transfer', () => {
  let t: TestContext;
  let m: CreatedIntegration;
  let deps: PaymentsDeps;
  beforeAll(async () => {
    t = await createTestApp();
    m = await t.merchant('Cape Coast Schools');
    deps = { db: t.database.db, clock: t.clock, ids: randomIds, providers: sandboxProviders, outbox: t.outbox };
  });
  afterAll(async () => t.close());

  async function startTransfer(sessionId: string) {
    const res = await startAttempt(t, sessionId, { rail: 'bank_transfer', amount_minor: await quoteTotal(t, sessionId, 'bank_transfer'), account_name: 'Esi Owusu' });
    expect(res.statusCode, res.body).toBe(201);
    return res.json();
  }

  it('201: instructions carry the bank, account, a unique payment reference, amount and the window end; the session is pending', async () => {
    const s = await openSession(t, m, { amount_minor: 50_000 });
    const a = await startTransfer(s.id);
    expect(a).toMatchObject({ rail: 'bank_transfer', provider: 'sandbox_bank_transfer', status: 'pending', amount_charged_minor: 50_100, replayed: false });
    expect(a.instructions).toEqual({
      mode: 'bank_transfer_instructions',
      rail: 'bank_transfer',
      bank_name: 'Paydesk Sandbox Bank',
      bank_code: 'PDSB',
      account_number: '1441000012345',
      account_name: 'Paydesk / Cape Coast Schools',
      payment_reference: expect.stringMatching(/^PDT[A-Z0-9]{9}$/),
      amount_minor: 50_100,
      currency: 'GHS',
      expires_at: new Date(t.clock.now().getTime() + 3600_000).toISOString(),
    });
    expect((await publicSession(t, s.id)).status).toBe('pending');
    const again = await startAttempt(t, s.id, { rail: 'bank_transfer', amount_minor: 50_100 });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ attempt_reference: a.attempt_reference, replayed: true, instructions: { mode: 'bank_transfer_instructions', rail: 'bank_transfer' } });
    expect(Object.keys(again.json().instructions).sort()).toEqual(['mode', 'rail']);
    const other = await openSession(t, m, { amount_minor: 50_000 });
    expect((await startTransfer(other.id)).instructions.payment_reference).not.toBe(a.instructions.payment_reference);
    // refresh asks the sandbox bank, which has nothing yet
    expect((await status(t, s.id, a.attempt_reference, true)).json()).toMatchObject({ status: 'pending', raw_status: 'AWAITING_TRANSFER', refreshed: true, finalized: false, session_status: 'pending' });
  });

  it('the sandbox confirmation with the right amount pays the session (one completed event)', async () => {
    const s = await openSession(t, m);
    const a = await startTransfer(s.id);
    const confirmed = await confirmBankTransfer(deps, a.instructions.payment_reference, a.amount_charged_minor);
    expect(confirmed).toMatchObject({ attempt_reference: a.attempt_reference, status: 'succeeded', raw_status: 'TRANSFER_RECEIVED', session_status: 'success', finalized: true });
    expect((await events(t, s.id)).map((e) => e.type)).toEqual(['checkout.session.completed']);
    expect(await publicSession(t, s.id)).toMatchObject({ status: 'success', paid_rail: 'bank_transfer' });
    // The bank's notification repeated: the transfer is no longer awaited.
    await expect(confirmBankTransfer(deps, a.instructions.payment_reference, a.amount_charged_minor)).rejects.toMatchObject({ code: 'STATE_CONFLICT' });
    expect(await events(t, s.id)).toHaveLength(1);
  });

  it('a wrong amount is refused with PAYMENT_AMOUNT_MISMATCH and the session keeps waiting for the transfer', async () => {
    const s = await openSession(t, m);
    const a = await startTransfer(s.id);
    for (const amount of [a.amount_charged_minor - 100, a.amount_charged_minor + 1]) {
      const err = await confirmBankTransfer(deps, a.instructions.payment_reference, amount).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AppError);
      expect(err).toMatchObject({ code: 'PAYMENT_AMOUNT_MISMATCH', status: 409 });
    }
    expect((await publicSession(t, s.id)).status).toBe('pending');
    expect((await status(t, s.id, a.attempt_reference)).json()).toMatchObject({ status: 'pending', session_status: 'pending' });
    expect(await events(t, s.id)).toHaveLength(0);
    // The right transfer afterwards still pays it.
    expect((await confirmBankTransfer(deps, a.instructions.payment_reference, a.amount_charged_minor)).session_status).toBe('success');
  });

  it('an unknown reference is NOT_FOUND; while the transfer window is open no card can pay, and the transfer does', async () => {
    await expect(confirmBankTransfer(deps, 'PDTNOSUCHREF', 100)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    const s = await openSession(t, m);
    const a = await startTransfer(s.id);
    const card = { amount_minor: a.amount_charged_minor, card_number: '4242424242424242', expiry_month: 12, expiry_year: 2099, cvc: '123' };
    expectError(await post(t.app, `${CHECKOUT}/sessions/${s.id}/card-payments`, card), 409, 'SESSION_NOT_PAYABLE');
    expect((await confirmBankTransfer(deps, a.instructions.payment_reference, a.amount_charged_minor)).session_status).toBe('success');
    expect(await events(t, s.id)).toHaveLength(1);
  });

  it('a transfer arriving after the window ended (and the session expired) is refused and pays nothing; the expiry itself is kept', async () => {
    const s = await openSession(t, m, { expires_in_seconds: 60 });
    const a = await startTransfer(s.id);
    t.clock.advanceSeconds(3601);
    // No sweep ran: the confirmation ends the window and expires the session itself (and keeps that), then finds nothing to pay.
    const err = await confirmBankTransfer(deps, a.instructions.payment_reference, a.amount_charged_minor).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'STATE_CONFLICT', message: expect.stringContaining('transfer window ended') });
    expect((await events(t, s.id)).map((e) => e.type)).toEqual(['checkout.session.expired']);
    expect((await status(t, s.id, a.attempt_reference)).json()).toMatchObject({ status: 'expired', raw_status: 'TRANSFER_WINDOW_ENDED', session_status: 'expired', finalized: true });
  });
});

describe('hosted checkout: POST /api/v1/checkout/cash-slips', () => {
  let t: TestContext;
  let m: CreatedIntegration;
  beforeAll(async () => {
    t = await createTestApp();
    m = await t.merchant('Ho Municipal');
  });
  afterAll(async () => t.close());

  const slip = (session_id: unknown, amount_minor: unknown, encoding: 'json' | 'urlencoded' | 'multipart' = 'json') =>
    post(t.app, `${CHECKOUT}/cash-slips`, { session_id, amount_minor }, { encoding });
  const payable = (sessionId: string) =>
    t.database.db.selectFrom('cash_slips').selectAll().where('session_id', '=', sessionId).where('status', 'in', ['active', 'under_review']).execute();

  it('201 issues a slip (unguessable token, short reference, lifetime of the session); a retry replays it (200, same token)', async () => {
    const s = await openSession(t, m, { amount_minor: 30_000, description: 'Property rate', customer: { name: 'Yaw Mensah' } });
    const res = await slip(s.id, 30_200);
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    expect(body).toEqual({
      slip_token: expect.stringMatching(/^slp_[A-Za-z0-9]{32}$/),
      reference: expect.stringMatching(/^PD-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$/), // Crockford base 32: no I, L, O, U
      amount_minor: 30_200,
      currency: 'GHS',
      merchant_name: 'Ho Municipal',
      session_reference: s.id,
      invoice_ref: s.invoice_ref,
      description: 'Property rate',
      customer_name: 'Yaw Mensah',
      status: 'active',
      expires_at: s.expires_at,
      replayed: false,
      can_record: true,
    });
    // 32 base62 characters: 32 × log2(62) ≈ 190 bits, well above 128.
    expect(32 * Math.log2(62)).toBeGreaterThan(128);
    expect(new Set(body.slip_token.slice(4)).size).toBeGreaterThan(10);

    for (const encoding of ['json', 'urlencoded', 'multipart'] as const) {
      const again = await slip(s.id, 30_200, encoding);
      expect(again.statusCode, again.body).toBe(200);
      expect(again.json()).toEqual({ ...body, replayed: true });
    }
    expect(await payable(s.id)).toHaveLength(1);
    expect((await publicSession(t, s.id)).status).toBe('open');
  });

  it('tokens and references differ between sessions', async () => {
    const tokens = new Set<string>();
    const refs = new Set<string>();
    for (let i = 0; i < 5; i++) {
      const s = await openSession(t, m);
      const body = (await slip(s.id, 10_200)).json();
      tokens.add(body.slip_token);
      refs.add(body.reference);
    }
    expect(tokens.size).toBe(5);
    expect(refs.size).toBe(5);
  });

  it('409 PAYMENT_AMOUNT_MISMATCH unless the amount is the cash total (base + payer-borne fee)', async () => {
    const s = await openSession(t, m, { amount_minor: 10_000 });
    for (const amount of [10_000, 10_199, 10_201]) {
      expect(expectError(await slip(s.id, amount), 409, 'PAYMENT_AMOUNT_MISMATCH').message).toContain('10200');
    }
    expect(await payable(s.id)).toHaveLength(0);
  });

  it('409 SESSION_NOT_PAYABLE while a prompt is pending and once final; the paid session voids its slip', async () => {
    const s = await openSession(t, m);
    const issued = (await slip(s.id, 10_200)).json();
    const a = await startMomo(t, s.id);
    expect(expectError(await slip(s.id, 10_200), 409, 'SESSION_NOT_PAYABLE').message).toMatch(/pending/);
    await authorize(t, s.id, a.attempt_reference, '123456');
    expectError(await slip(s.id, 10_200), 409, 'SESSION_NOT_PAYABLE');
    const row = await t.database.db.selectFrom('cash_slips').select('status').where('token', '=', issued.slip_token).executeTakeFirstOrThrow();
    expect(row.status).toBe('voided');
  });

  it('404 for an unknown session; 400 naming the field for bad input; RAIL_NOT_ALLOWED when cash is off', async () => {
    expectError(await slip('cs_test_unknown', 100), 404, 'NOT_FOUND');
    expect(expectError(await slip(undefined, 100), 400, 'INVALID_ARGUMENT').message).toBe('session_id: is required');
    expect(expectError(await slip('x'.repeat(81), 100), 400, 'INVALID_ARGUMENT').message).toMatch(/^session_id: must be at most 80/);
    expect(expectError(await slip('cs_test_x', 0), 400, 'INVALID_ARGUMENT').message).toMatch(/^amount_minor: must be at least 1/);
    expect(expectError(await slip('cs_test_x', 10.5), 400, 'INVALID_ARGUMENT').message).toMatch(/^amount_minor/);
    const noCash = await t.merchant();
    await setAllowedRails(t, noCash.integration_id, ['momo', 'card']);
    const s = await openSession(t, noCash);
    expectError(await slip(s.id, 10_200), 400, 'RAIL_NOT_ALLOWED');
  });

  it('a slip lives as long as its session: both expire together (sweeper), and the slip cannot be recorded afterwards', async () => {
    const s = await openSession(t, m, { expires_in_seconds: 120 });
    const issued = (await slip(s.id, 10_200)).json();
    expect(issued.expires_at).toBe(s.expires_at);
    t.clock.advanceSeconds(120);
    await sweep(t.database.db, { clock: t.clock, ids: randomIds, outbox: t.outbox });
    expect((await publicSession(t, s.id)).status).toBe('expired');
    const row = await t.database.db.selectFrom('cash_slips').select('status').where('token', '=', issued.slip_token).executeTakeFirstOrThrow();
    expect(['voided', 'expired']).toContain(row.status);
    expectError(await slip(s.id, 10_200), 409, 'SESSION_NOT_PAYABLE');
  });
});
