import { describe, expect, it } from 'vitest';
import type { PaymentAttemptsTable } from '../../server/db/schema';
import { AppError } from '../../server/lib/errors';
import { CARD_TEST_NUMBERS, cardBrand, decideSandboxCard, luhnValid } from '../../server/providers/sandbox-card';
import { MOMO_PROMPT_TTL_SECONDS, MOMO_TEST_NUMBERS, SANDBOX_MOMO_APPROVE_CODE, sandboxMomo } from '../../server/providers/sandbox-momo';
import { bankTransferInstructions, sandboxBankTransfer } from '../../server/providers/sandbox-bank-transfer';

const NOW = new Date('2026-06-01T09:00:00.000Z');

function attempt(over: Partial<PaymentAttemptsTable>): PaymentAttemptsTable {
  return {
    id: 'pa_x',
    session_id: 'cs_x',
    rail: 'momo',
    provider: 'sandbox_momo_mtn',
    provider_reference: 'MTN-x',
    status: 'pending',
    raw_status: 'PROMPT_SENT',
    decline_reason: null,
    base_minor: 100,
    fee_minor: 1,
    amount_charged_minor: 101,
    currency: 'GHS',
    operator: 'mtn',
    phone: '233241234567',
    phone_last4: '4567',
    account_name: null,
    payment_reference: null,
    card_brand: null,
    card_last4: null,
    scenario: 'normal',
    resend_count: 0,
    code_sent_at: NOW.toISOString(),
    prompt_expires_at: new Date(NOW.getTime() + MOMO_PROMPT_TTL_SECONDS * 1000).toISOString(),
    created_at: NOW.toISOString(),
    updated_at: NOW.toISOString(),
    finalized_at: null,
    ...over,
  };
}

const initiate = (phone: string, operator = 'mtn') =>
  sandboxMomo.initiate!({ attemptId: 'pa_x', sessionId: 'cs_x', merchantName: 'M', chargeMinor: 101, currency: 'GHS', operator, phone, sessionExpiresAt: NOW.toISOString(), now: NOW });

describe('sandbox card', () => {
  it('Luhn check', () => {
    for (const n of Object.keys(CARD_TEST_NUMBERS)) expect(luhnValid(n)).toBe(true);
    expect(luhnValid('4242424242424241')).toBe(false);
    expect(luhnValid('79927398713')).toBe(true);
    expect(luhnValid('79927398710')).toBe(false);
  });

  it('brands', () => {
    expect(cardBrand('4242424242424242')).toBe('visa');
    expect(cardBrand('5555555555554444')).toBe('mastercard');
    expect(cardBrand('2223003122003222')).toBe('mastercard');
    expect(cardBrand('378282246310005')).toBe('amex');
    expect(cardBrand('5061000000000000')).toBe('verve');
    expect(cardBrand('6011111111111117')).toBe('unknown');
  });

  it('each test card decides as documented; brand and last4 only', () => {
    for (const [number, t] of Object.entries(CARD_TEST_NUMBERS)) {
      const d = decideSandboxCard(number, 12, 2099, NOW);
      expect(d).toEqual({ ok: true, outcome: t.outcome, reason: t.reason, brand: cardBrand(number), last4: number.slice(-4) });
    }
  });

  it('the card is valid through the last day of its expiry month', () => {
    expect(decideSandboxCard('4242424242424242', 6, 2026, NOW)).toMatchObject({ ok: true, outcome: 'succeeded' });
    expect(decideSandboxCard('4242424242424242', 6, 2026, new Date('2026-06-30T23:59:59.999Z'))).toMatchObject({ outcome: 'succeeded' });
    expect(decideSandboxCard('4242424242424242', 6, 2026, new Date('2026-07-01T00:00:00.000Z'))).toMatchObject({ outcome: 'declined', reason: 'expired_card' });
    expect(decideSandboxCard('4242424242424242', 5, 2026, NOW)).toMatchObject({ outcome: 'declined', reason: 'expired_card' });
  });

  it('refuses non-test and Luhn-invalid numbers without quoting them', () => {
    for (const n of ['4111111111111111', '4242424242424241']) {
      const d = decideSandboxCard(n, 12, 2099, NOW);
      expect(d.ok).toBe(false);
      if (!d.ok) {
        expect(d.field).toBe('card_number');
        expect(d.message).not.toContain(n.slice(-8));
      }
    }
  });
});

describe('sandbox Mobile Money', () => {
  it('a normal wallet: 123456 approves, any other code declines', async () => {
    const started = await initiate('233241234567', 'telecel');
    expect(started).toMatchObject({ provider: 'sandbox_momo_telecel', providerReference: expect.stringMatching(/^TEL-/), scenario: 'normal', status: 'pending', rawStatus: 'PROMPT_SENT' });
    expect(started.promptExpiresAt).toBe(new Date(NOW.getTime() + MOMO_PROMPT_TTL_SECONDS * 1000).toISOString());
    expect(SANDBOX_MOMO_APPROVE_CODE).toBe('123456');
    expect(await sandboxMomo.authorize!(attempt({}), '123456', NOW)).toEqual({ status: 'succeeded', rawStatus: 'SUCCESSFUL' });
    expect(await sandboxMomo.authorize!(attempt({}), '654321', NOW)).toMatchObject({ status: 'declined', declineReason: 'invalid_code' });
    expect(await sandboxMomo.refresh(attempt({}), NOW)).toMatchObject({ status: 'pending', rawStatus: 'PROMPT_SENT' });
    expect(await sandboxMomo.resend!(attempt({}), NOW)).toMatchObject({ status: 'pending', rawStatus: 'PROMPT_SENT' });
  });

  it('recognises every country\'s test numbers in E.164, as the server stores them, or as bare digits', async () => {
    for (const [digits, v] of Object.entries(MOMO_TEST_NUMBERS)) {
      if (v.scenario === 'wallet_rejected') continue;
      expect((await initiate(`+${digits}`)).scenario).toBe(v.scenario);
      expect((await initiate(digits)).scenario).toBe(v.scenario);
    }
    expect(Object.keys(MOMO_TEST_NUMBERS)).toContain('254712000001');
    await expect(initiate('233240000006')).rejects.toThrow(AppError);
    await expect(initiate('233240000006')).rejects.toMatchObject({ code: 'PROVIDER_PAYMENT_REJECTED', status: 400 });
  });

  it('scenario outcomes', async () => {
    const at = (scenario: string, over: Partial<PaymentAttemptsTable> = {}) => attempt({ scenario, ...over });
    expect(await sandboxMomo.authorize!(at('payer_declined'), '123456', NOW)).toMatchObject({ status: 'declined', rawStatus: 'FAILED:PAYER_DECLINED' });
    expect(await sandboxMomo.authorize!(at('insufficient_funds'), '123456', NOW)).toMatchObject({ status: 'declined', rawStatus: 'FAILED:INSUFFICIENT_FUNDS' });
    expect(await sandboxMomo.authorize!(at('insufficient_funds'), '111111', NOW)).toMatchObject({ status: 'declined', rawStatus: 'FAILED:INVALID_CODE' });
    expect(await sandboxMomo.authorize!(at('prompt_expired'), '123456', NOW)).toMatchObject({ status: 'expired', rawStatus: 'PROMPT_EXPIRED' });
    expect(await sandboxMomo.authorize!(at('stuck'), '123456', NOW)).toEqual({ status: 'pending', rawStatus: 'AWAITING_CALLBACK' });
    expect(await sandboxMomo.refresh(at('stuck', { raw_status: 'AWAITING_CALLBACK' }), NOW)).toEqual({ status: 'succeeded', rawStatus: 'SUCCESSFUL' });
    expect(await sandboxMomo.refresh(at('stuck'), NOW)).toMatchObject({ status: 'pending', rawStatus: 'PROMPT_SENT' });
    for (const call of [() => sandboxMomo.authorize!(at('unavailable'), '123456', NOW), () => sandboxMomo.refresh(at('unavailable'), NOW), () => sandboxMomo.resend!(at('unavailable'), NOW)]) {
      await expect(call()).rejects.toThrow(expect.objectContaining({ code: 'PROVIDER_RAIL_UNAVAILABLE', status: 503, retryAfterSeconds: 30 }));
    }
  });

  it('a prompt expires after its TTL, on authorize, refresh and resend alike', async () => {
    const late = new Date(NOW.getTime() + MOMO_PROMPT_TTL_SECONDS * 1000);
    const early = new Date(late.getTime() - 1);
    expect((await sandboxMomo.authorize!(attempt({}), '123456', early)).status).toBe('succeeded');
    expect(await sandboxMomo.authorize!(attempt({}), '123456', late)).toMatchObject({ status: 'expired', declineReason: 'prompt_expired' });
    expect((await sandboxMomo.refresh(attempt({}), late)).status).toBe('expired');
    expect((await sandboxMomo.resend!(attempt({}), late)).status).toBe('expired');
  });
});

describe('sandbox bank transfer', () => {
  it('gives instructions with a fresh payment reference and waits for the transfer', async () => {
    const input = { attemptId: 'pa_x', sessionId: 'cs_x', merchantName: 'Ho Water', chargeMinor: 5_100, currency: 'GHS', sessionExpiresAt: '2026-06-02T09:00:00.000Z', now: NOW };
    const a = await sandboxBankTransfer.initiate!(input);
    const b = await sandboxBankTransfer.initiate!(input);
    expect(a).toMatchObject({ status: 'pending', rawStatus: 'AWAITING_TRANSFER', paymentReference: expect.stringMatching(/^PDT[A-Z0-9]{9}$/) });
    expect(a.paymentReference).not.toBe(b.paymentReference);
    const shown = bankTransferInstructions({ merchantName: 'Ho Water', paymentReference: a.paymentReference ?? null, chargeMinor: 5_100, currency: 'GHS', expiresAt: input.sessionExpiresAt });
    expect(shown).toMatchObject({ account_number: '1441000012345', account_name: 'Paydesk / Ho Water', payment_reference: a.paymentReference, amount_minor: 5_100, expires_at: input.sessionExpiresAt });
    expect(await sandboxBankTransfer.refresh(attempt({ rail: 'bank_transfer', raw_status: 'AWAITING_TRANSFER' }), NOW)).toMatchObject({ status: 'pending', rawStatus: 'AWAITING_TRANSFER' });
  });
});
