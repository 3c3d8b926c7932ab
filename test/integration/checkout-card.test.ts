import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../support/app';
import { post } from '../support/http';
import { events, expectError, openSession, payByCard, publicSession, quoteTotal, sessionUrl, setAllowedRails, startMomo } from '../support/checkout';
import { CARD_TEST_NUMBERS } from '../../server/providers/sandbox-card';
import type { CreatedIntegration } from '../../server/modules/integrations/integrations.service';

describe('hosted checkout: POST …/card-payments (test simulation)', () => {
  let t: TestContext;
  let m: CreatedIntegration;
  beforeAll(async () => {
    t = await createTestApp();
    m = await t.merchant('Tema Books');
  });
  afterAll(async () => t.close());

  const expected: Record<string, { status: string; brand: string; reason: string | null }> = {
    '4242424242424242': { status: 'succeeded', brand: 'visa', reason: null },
    '5555555555554444': { status: 'succeeded', brand: 'mastercard', reason: null },
    '4000000000000002': { status: 'declined', brand: 'visa', reason: 'card_declined' },
    '4000000000009995': { status: 'declined', brand: 'visa', reason: 'insufficient_funds' },
    '4000000000000069': { status: 'declined', brand: 'visa', reason: 'expired_card' },
  };

  it('covers every documented test card', () => {
    expect(Object.keys(CARD_TEST_NUMBERS).sort()).toEqual(Object.keys(expected).sort());
  });

  for (const [number, want] of Object.entries(expected)) {
    it(`${number}: ${want.status}${want.reason ? ` (${want.reason})` : ''}; only brand and last4 are kept`, async () => {
      const s = await openSession(t, m, { amount_minor: 25_000 });
      const res = await payByCard(t, s.id, number.replace(/(\d{4})(?=\d)/g, '$1 '), { cvc: '4321' });
      expect(res.statusCode, res.body).toBe(201);
      const body = res.json();
      expect(body).toEqual({
        id: expect.stringMatching(/^pa_/),
        status: want.status,
        brand: want.brand,
        last4: number.slice(-4),
        amount_minor: 25_000, // card fees are merchant-borne by default
        currency: 'GHS',
        decline_reason: want.reason,
        session_id: s.id,
        session_status: want.status === 'succeeded' ? 'success' : 'open',
      });
      expect(res.body).not.toContain(number);
      expect(res.body).not.toContain('4321');
      const row = await t.database.db.selectFrom('payment_attempts').selectAll().where('id', '=', body.id).executeTakeFirstOrThrow();
      expect(row).toMatchObject({ rail: 'card', card_brand: want.brand, card_last4: number.slice(-4), phone: null, status: want.status });
      expect(JSON.stringify(row)).not.toContain(number.slice(0, 12));
      const evs = await events(t, s.id);
      expect(evs.map((e) => e.type)).toEqual(want.status === 'succeeded' ? ['checkout.session.completed'] : []);
      if (want.status === 'succeeded') {
        expect(await publicSession(t, s.id)).toMatchObject({ status: 'success', paid_rail: 'card' });
        expect(evs[0]!.payload).not.toContain(number);
      }
    });
  }

  it('an expiry date in the past declines a test card as expired_card; this month is still valid', async () => {
    const now = t.clock.now();
    const s = await openSession(t, m);
    const last = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1));
    const past = await payByCard(t, s.id, '4242424242424242', { expiry_month: last.getUTCMonth() + 1, expiry_year: last.getUTCFullYear() });
    expect(past.json()).toMatchObject({ status: 'declined', decline_reason: 'expired_card', session_status: 'open' });
    const current = await payByCard(t, s.id, '4242424242424242', { expiry_month: now.getUTCMonth() + 1, expiry_year: now.getUTCFullYear() });
    expect(current.json()).toMatchObject({ status: 'succeeded', session_status: 'success' });
  });

  it('400 INVALID_ARGUMENT for a non-test or Luhn-invalid number, a bad CVC or expiry, without echoing the number', async () => {
    const s = await openSession(t, m);
    const cases: Array<[Record<string, unknown>, RegExp, string]> = [
      [{ card_number: '4111111111111111' }, /^card_number: test mode accepts only the sandbox test cards/, '4111111111111111'],
      [{ card_number: '4242424242424241' }, /^card_number: is not a valid card number/, '4242424242424241'],
      [{ card_number: '42424242' }, /^card_number: must be 12 to 19 digits/, '42424242'],
      [{ card_number: '4242-4242-4242-424x' }, /^card_number: must be 12 to 19 digits/, '424242424242424'],
      [{ card_number: undefined }, /^card_number: is required/, '4242424242424242'],
      [{ cvc: '12' }, /^cvc: must be 3 or 4 digits/, '4242424242424242'],
      [{ cvc: '98765' }, /^cvc: must be 3 or 4 digits/, '98765'],
      [{ cvc: undefined }, /^cvc: is required/, '4242424242424242'],
      [{ expiry_month: 13 }, /^expiry_month: must be 1 to 12/, '4242424242424242'],
      [{ expiry_year: 99 }, /^expiry_year: must be a four-digit year/, '4242424242424242'],
    ];
    for (const [extra, message, secret] of cases) {
      const body = { amount_minor: s.amount_minor, card_number: '4242424242424242', expiry_month: 12, expiry_year: 2099, cvc: '123', ...extra };
      const res = await post(t.app, `${sessionUrl(s.id)}/card-payments`, body);
      const err = expectError(res, 400, 'INVALID_ARGUMENT');
      expect(err.message).toMatch(message);
      expect(res.body).not.toContain(secret);
    }
    expect(await t.database.db.selectFrom('payment_attempts').select('id').where('session_id', '=', s.id).execute()).toHaveLength(0);
    expect((await publicSession(t, s.id)).status).toBe('open');
  });

  it('accepts form-encoded card fields like a plain HTML form', async () => {
    const s = await openSession(t, m);
    const res = await post(
      t.app,
      `${sessionUrl(s.id)}/card-payments`,
      { amount_minor: s.amount_minor, card_number: '5555 5555 5555 4444', expiry_month: '07', expiry_year: '2099', cvc: '987' },
      { encoding: 'urlencoded' },
    );
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ status: 'succeeded', brand: 'mastercard', last4: '4444' });
  });

  it('409 PAYMENT_AMOUNT_MISMATCH for another amount, 409 SESSION_NOT_PAYABLE when not open, 404 for an unknown session', async () => {
    const s = await openSession(t, m, { amount_minor: 10_000 });
    const err = expectError(await payByCard(t, s.id, '4242424242424242', { amount_minor: 10_195 }), 409, 'PAYMENT_AMOUNT_MISMATCH');
    expect(err.message).not.toContain('4242424242424242');
    await startMomo(t, s.id); // pending
    expectError(await post(t.app, `${sessionUrl(s.id)}/card-payments`, { amount_minor: 10_000, card_number: '4242424242424242', expiry_month: 12, expiry_year: 2099, cvc: '123' }), 409, 'SESSION_NOT_PAYABLE');
    expectError(await post(t.app, `${sessionUrl('cs_test_nope')}/card-payments`, { amount_minor: 10_000, card_number: '4242424242424242', expiry_month: 12, expiry_year: 2099, cvc: '123' }), 404, 'NOT_FOUND');
  });

  it('400 RAIL_NOT_ALLOWED when cards are not accepted; PROVIDER_RAIL_UNSUPPORTED when cards go to the direct provider', async () => {
    const noCard = await t.merchant();
    await setAllowedRails(t, noCard.integration_id, ['momo']);
    const s = await openSession(t, noCard);
    expectError(await post(t.app, `${sessionUrl(s.id)}/card-payments`, { amount_minor: 10_000, card_number: '4242424242424242', expiry_month: 12, expiry_year: 2099, cvc: '123' }), 400, 'RAIL_NOT_ALLOWED');

    const direct = await t.merchant();
    await t.database.db.updateTable('integrations').set({ card_collection_mode: 'direct_card' }).where('id', '=', direct.integration_id).execute();
    const d = await openSession(t, direct);
    expect((await publicSession(t, d.id)).card_collection_mode).toBe('direct_card');
    expectError(await payByCard(t, d.id, '4242424242424242'), 400, 'PROVIDER_RAIL_UNSUPPORTED');
    expect(await quoteTotal(t, d.id, 'card')).toBe(10_000);
  });
});
