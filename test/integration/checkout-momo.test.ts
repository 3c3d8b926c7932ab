import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../support/app';
import { post } from '../support/http';
import {
  attemptUrl,
  authorize,
  events,
  expectError,
  history,
  openSession,
  publicSession,
  quoteTotal,
  resend,
  setAllowedRails,
  startAttempt,
  startMomo,
  status,
} from '../support/checkout';

import { MOMO_TEST_NUMBERS } from '../../server/providers/sandbox-momo';

import type { CreatedIntegration } from '../../server/modules/integrations/integrations.service';

/** Sandbox test numbers by scenario, in the local 0XXXXXXXXX form. */
/** Ghana's sandbox numbers by scenario, national form (`0240000001`). */
const TEST_PHONE = Object.fromEntries(Object.entries(MOMO_TEST_NUMBERS).filter(([, v]) => v.country === 'GH').map(([digits, v]) => [v.scenario, `0${digits.slice(3)}`]));

describe('hosted checkout: Mobile Money provider attempts', () => {
  let t: TestContext;
  let m: CreatedIntegration;
  beforeAll(async () => {
    t = await createTestApp();
    m = await t.merchant('Kumasi Power');
  });
  afterAll(async () => t.close());

  it('documents a scenario for every sandbox test number (the table the tests below walk through)', () => {
    for (const country of ['GH', 'CI', 'SN', 'KE']) {
      expect(Object.values(MOMO_TEST_NUMBERS).filter((v) => v.country === country).map((v) => v.scenario).sort()).toEqual(
        ['insufficient_funds', 'payer_declined', 'prompt_expired', 'stuck', 'unavailable', 'wallet_rejected'].sort(),
      );
    }
  });

  describe('POST …/provider-attempts', () => {
    it('201: starts a prompt, shows only the last four digits, and moves the session to pending', async () => {
      const s = await openSession(t, m, { amount_minor: 10_000 });
      const total = await quoteTotal(t, s.id, 'momo');
      expect(total).toBe(10_100);
      const res = await startAttempt(t, s.id, { rail: 'momo', amount_minor: total, operator: 'mtn', phone: '0241234567' });
      expect(res.statusCode, res.body).toBe(201);
      const a = res.json();
      expect(a).toEqual({
        attempt_reference: expect.stringMatching(/^pa_[A-Za-z0-9]{24}$/),
        provider: 'sandbox_momo_mtn',
        provider_reference: expect.stringMatching(/^MTN-/),
        rail: 'momo',
        status: 'pending',
        amount_charged_minor: 10_100,
        currency: 'GHS',
        instructions: { mode: 'mobile_money_prompt', rail: 'momo', amount_minor: 10_100, currency: 'GHS', operator: 'mtn', phone_last4: '4567' },
        replayed: false,
      });
      expect(res.body).not.toContain('241234567');
      expect((await publicSession(t, s.id)).status).toBe('pending');
      expect(await history(t, s.id)).toEqual([
        { from_status: 'none', to_status: 'open', cause: 'created' },
        { from_status: 'open', to_status: 'pending', cause: expect.stringContaining('prompt sent') },
      ]);
    });

    it('200 replayed: the same request (either phone form) returns the pending attempt with only mode and rail, whatever the session status', async () => {
      const s = await openSession(t, m);
      const first = await startMomo(t, s.id, '024 123 4567', 'airteltigo');
      const total = first.amount_charged_minor;
      for (const phone of ['0241234567', '233241234567', '+233 24 123 4567']) {
        const again = await startAttempt(t, s.id, { rail: 'momo', amount_minor: total, operator: 'airteltigo', phone });
        expect(again.statusCode, again.body).toBe(200);
        expect(again.json()).toMatchObject({ attempt_reference: first.attempt_reference, status: 'pending', replayed: true, provider: 'sandbox_momo_airteltigo' });
        expect(again.json().instructions).toEqual({ mode: 'mobile_money_prompt', rail: 'momo' });
        expect(again.body).not.toContain('241234567');
      }
      expect(await t.database.db.selectFrom('payment_attempts').select('id').where('session_id', '=', s.id).execute()).toHaveLength(1);
      // A different phone while the first prompt is pending: the session is not open.
      expectError(await startAttempt(t, s.id, { rail: 'momo', amount_minor: total, operator: 'airteltigo', phone: '0207654321' }), 409, 'SESSION_NOT_PAYABLE');
      expectError(await startAttempt(t, s.id, { rail: 'momo', amount_minor: total, operator: 'mtn', phone: '0241234567' }), 409, 'SESSION_NOT_PAYABLE');
    });

    it('400 INVALID_ARGUMENT names operator or phone for bad or missing values, without echoing the number', async () => {
      const s = await openSession(t, m);
      const total = await quoteTotal(t, s.id, 'momo');
      const cases: Array<[Record<string, unknown>, RegExp]> = [
        [{ phone: '0241234567' }, /^operator: is required/],
        [{ operator: 'vodafone', phone: '0241234567' }, /^operator: must be one of mtn, telecel, airteltigo/],
        [{ operator: 'MTN', phone: '0241234567' }, /^operator:/],
        [{ operator: 'mtn' }, /^phone: is required/],
        [{ operator: 'mtn', phone: '02412345' }, /^phone: must be a Ghana number/],
        [{ operator: 'mtn', phone: '44241234567' }, /^phone: must be a Ghana number/],
        [{ operator: 'mtn', phone: '2332412345678' }, /^phone: must be a Ghana number/],
        [{ operator: 'mtn', phone: 'O24I234567' }, /^phone: must be a Ghana number/],
        [{ operator: 'mtn', phone: 241234567 }, /^phone: must be a string/],
      ];
      for (const [extra, message] of cases) {
        const err = expectError(await startAttempt(t, s.id, { rail: 'momo', amount_minor: total, ...extra }), 400, 'INVALID_ARGUMENT');
        expect(err.message).toMatch(message);
        expect(err.message).not.toMatch(/\d{7}/);
      }
      expectError(await startAttempt(t, s.id, { rail: 'bitcoin', amount_minor: total }), 400, 'INVALID_ARGUMENT');
      expect(expectError(await startAttempt(t, s.id, { rail: 'momo', operator: 'mtn', phone: '0241234567' }), 400, 'INVALID_ARGUMENT').message).toMatch(/^amount_minor/);
      expect((await publicSession(t, s.id)).status).toBe('open');
    });

    it('400 PROVIDER_RAIL_UNSUPPORTED for card and cash (they have their own endpoints)', async () => {
      const s = await openSession(t, m);
      for (const rail of ['card', 'cash'] as const) {
        const err = expectError(await startAttempt(t, s.id, { rail, amount_minor: await quoteTotal(t, s.id, rail) }), 400, 'PROVIDER_RAIL_UNSUPPORTED');
        expect(err.message).toContain(rail);
      }
    });

    it('400 RAIL_NOT_ALLOWED when the integration does not accept the rail', async () => {
      const m2 = await t.merchant();
      await setAllowedRails(t, m2.integration_id, ['card', 'cash']);
      const s = await openSession(t, m2);
      const momo = expectError(await startAttempt(t, s.id, { rail: 'momo', amount_minor: 10_100, operator: 'mtn', phone: '0241234567' }), 400, 'RAIL_NOT_ALLOWED');
      expect(momo.message).toMatch(/^rail: momo/);
      expectError(await startAttempt(t, s.id, { rail: 'bank_transfer', amount_minor: 10_100 }), 400, 'RAIL_NOT_ALLOWED');
      expect((await publicSession(t, s.id)).status).toBe('open');
    });

    it('409 PAYMENT_AMOUNT_MISMATCH when the amount is not the quoted total for the rail', async () => {
      const s = await openSession(t, m, { amount_minor: 10_000 });
      for (const amount of [10_000, 10_099, 10_101]) {
        const err = expectError(await startAttempt(t, s.id, { rail: 'momo', amount_minor: amount, operator: 'mtn', phone: '0241234567' }), 409, 'PAYMENT_AMOUNT_MISMATCH');
        expect(err.message).toContain('10100');
      }
      // bank transfer's total is base + 1.00
      expectError(await startAttempt(t, s.id, { rail: 'bank_transfer', amount_minor: 10_100 + 1 }), 409, 'PAYMENT_AMOUNT_MISMATCH');
      expect(await t.database.db.selectFrom('payment_attempts').select('id').where('session_id', '=', s.id).execute()).toHaveLength(0);
      expect((await publicSession(t, s.id)).status).toBe('open');
    });

    it('409 SESSION_NOT_PAYABLE once the session is final, and 404 for an unknown session', async () => {
      const s = await openSession(t, m);
      const a = await startMomo(t, s.id);
      expect((await authorize(t, s.id, a.attempt_reference, '123456')).statusCode).toBe(200);
      expectError(await startAttempt(t, s.id, { rail: 'momo', amount_minor: a.amount_charged_minor, operator: 'mtn', phone: '0241234567' }), 409, 'SESSION_NOT_PAYABLE');
      expectError(await startAttempt(t, 'cs_test_unknown', { rail: 'momo', amount_minor: 100, operator: 'mtn', phone: '0241234567' }), 404, 'NOT_FOUND');
    });

    it('400 PROVIDER_PAYMENT_REJECTED when the provider refuses the wallet; nothing is recorded and the session stays open', async () => {
      const s = await openSession(t, m);
      const total = await quoteTotal(t, s.id, 'momo');
      const err = expectError(await startAttempt(t, s.id, { rail: 'momo', amount_minor: total, operator: 'mtn', phone: TEST_PHONE.wallet_rejected }), 400, 'PROVIDER_PAYMENT_REJECTED');
      expect(err.message).toMatch(/^phone:/);
      expect(err.message).not.toContain(TEST_PHONE.wallet_rejected!.slice(1));
      expect(await t.database.db.selectFrom('payment_attempts').select('id').where('session_id', '=', s.id).execute()).toHaveLength(0);
      expect((await publicSession(t, s.id)).status).toBe('open');
      // 233 form is the same wallet
      expectError(await startAttempt(t, s.id, { rail: 'momo', amount_minor: total, operator: 'telecel', phone: `233${TEST_PHONE.wallet_rejected!.slice(1)}` }), 400, 'PROVIDER_PAYMENT_REJECTED');
    });
  });

  describe('authorize', () => {
    it('123456 approves: attempt succeeded, session success, exactly one checkout.session.completed event, lines remitted', async () => {
      const s = await openSession(t, m);
      const a = await startMomo(t, s.id);
      const res = await authorize(t, s.id, a.attempt_reference, '123456');
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json();
      expect(body).toEqual({
        attempt_reference: a.attempt_reference,
        provider: 'sandbox_momo_mtn',
        provider_reference: expect.stringMatching(/^MTN-/),
        rail: 'momo',
        status: 'succeeded',
        amount_charged_minor: a.amount_charged_minor,
        currency: 'GHS',
        session_id: s.id,
        session_status: 'success',
        session_finalized_at: t.clock.now().toISOString(),
        raw_status: 'SUCCESSFUL',
        refreshed: false,
        finalized: true,
        decline_reason: null,
        resend_available_in_seconds: 0,
      });
      const evs = await events(t, s.id);
      expect(evs.map((e) => e.type)).toEqual(['checkout.session.completed']);
      const payload = JSON.parse(evs[0]!.payload);
      expect(payload).toMatchObject({ id: evs[0]!.id, type: 'checkout.session.completed', data: { session: { id: s.id, status: 'success', amount_minor: s.amount_minor, currency: 'GHS', invoice_ref: s.invoice_ref, metadata: {} } } });
      expect(evs[0]!.payload).not.toContain('241234567');
      expect(await publicSession(t, s.id)).toMatchObject({ status: 'success', paid_rail: 'momo', pending_attempt: null });
      expect((await history(t, s.id)).map((h) => `${h.from_status}→${h.to_status}`)).toEqual(['none→open', 'open→pending', 'pending→success']);

      // A second authorize changes nothing: the attempt is no longer pending.
      expectError(await authorize(t, s.id, a.attempt_reference, '123456'), 409, 'STATE_CONFLICT');
      expect(await events(t, s.id)).toHaveLength(1);
      // The status endpoint reports the final state.
      const st = await status(t, s.id, a.attempt_reference, true);
      expect(st.json()).toMatchObject({ status: 'succeeded', session_status: 'success', finalized: true, refreshed: false });
    });

    it('a wrong code declines the attempt and hands the session back (open); a new attempt then gets 201', async () => {
      const s = await openSession(t, m);
      const a = await startMomo(t, s.id);
      const res = await authorize(t, s.id, a.attempt_reference, '000000');
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ status: 'declined', raw_status: 'FAILED:INVALID_CODE', decline_reason: 'invalid_code', session_status: 'open', finalized: false, session_finalized_at: null });
      expect(await events(t, s.id)).toHaveLength(0);
      // The same request no longer replays: a declined attempt is not pending.
      const again = await startAttempt(t, s.id, { rail: 'momo', amount_minor: a.amount_charged_minor, operator: 'mtn', phone: '0241234567' });
      expect(again.statusCode, again.body).toBe(201);
      expect(again.json().attempt_reference).not.toBe(a.attempt_reference);
      expect(again.json().replayed).toBe(false);
      expect((await authorize(t, s.id, again.json().attempt_reference, '123456')).json()).toMatchObject({ status: 'succeeded', session_status: 'success' });
    });

    it('400 INVALID_ARGUMENT for a malformed or missing code; 404 for an unknown attempt or one of another session', async () => {
      const s = await openSession(t, m);
      const a = await startMomo(t, s.id);
      for (const code of ['12ab56', '', '1234567890', 123456]) {
        expect(expectError(await authorize(t, s.id, a.attempt_reference, code as string), 400, 'INVALID_ARGUMENT').message).toMatch(/^code:/);
      }
      expect(expectError(await post(t.app, `${attemptUrl(s.id, a.attempt_reference)}/authorize`, {}), 400, 'INVALID_ARGUMENT').message).toBe('code: is required');
      expectError(await authorize(t, s.id, 'pa_unknown', '123456'), 404, 'NOT_FOUND');
      const other = await openSession(t, m);
      expectError(await authorize(t, other.id, a.attempt_reference, '123456'), 404, 'NOT_FOUND');
      expectError(await status(t, other.id, a.attempt_reference), 404, 'NOT_FOUND');
      expect((await status(t, s.id, a.attempt_reference)).json().status).toBe('pending');
    });

    it('a bank-transfer attempt takes no code: 400 PROVIDER_RAIL_UNSUPPORTED', async () => {
      const s = await openSession(t, m);
      const res = await startAttempt(t, s.id, { rail: 'bank_transfer', amount_minor: await quoteTotal(t, s.id, 'bank_transfer') });
      expectError(await authorize(t, s.id, res.json().attempt_reference, '123456'), 400, 'PROVIDER_RAIL_UNSUPPORTED');
      expectError(await resend(t, s.id, res.json().attempt_reference), 400, 'PROVIDER_RAIL_UNSUPPORTED');
    });
  });

});
