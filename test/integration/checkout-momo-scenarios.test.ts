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
  resend,
  sessionRow,
  sessionUrl,
  startMomo,
  status,
} from '../support/checkout';
import { sweep } from '../../server/jobs/sweeper';
import { randomIds } from '../../server/lib/ids';
import { MOMO_PROMPT_TTL_SECONDS, MOMO_TEST_NUMBERS } from '../../server/providers/sandbox-momo';
import { RESEND_COOLDOWN_SECONDS } from '../../server/modules/payments/payments.service';
import type { CreatedIntegration } from '../../server/modules/integrations/integrations.service';

/** Sandbox test numbers by scenario, in the local 0XXXXXXXXX form. */
/** Ghana's sandbox numbers by scenario, national form (`0240000001`). */
const TEST_PHONE = Object.fromEntries(Object.entries(MOMO_TEST_NUMBERS).filter(([, v]) => v.country === 'GH').map(([digits, v]) => [v.scenario, `0${digits.slice(3)}`]));

describe('hosted checkout: Mobile Money sandbox scenarios, status, resend, encodings, expiry', () => {
  let t: TestContext;
  let m: CreatedIntegration;
  beforeAll(async () => {
    t = await createTestApp();
    m = await t.merchant('Kumasi Power');
  });
  afterAll(async () => t.close());

  describe('sandbox test numbers', () => {
    it('payer_declined: any code declines (PAYER_DECLINED), the session reopens', async () => {
      const s = await openSession(t, m);
      const a = await startMomo(t, s.id, TEST_PHONE.payer_declined, 'telecel');
      expect((await authorize(t, s.id, a.attempt_reference, '123456')).json()).toMatchObject({
        status: 'declined',
        raw_status: 'FAILED:PAYER_DECLINED',
        decline_reason: 'payer_declined',
        session_status: 'open',
        finalized: false,
      });
    });

    it('insufficient_funds: 123456 declines with INSUFFICIENT_FUNDS', async () => {
      const s = await openSession(t, m);
      const a = await startMomo(t, s.id, TEST_PHONE.insufficient_funds);
      expect((await authorize(t, s.id, a.attempt_reference, '123456')).json()).toMatchObject({
        status: 'declined',
        raw_status: 'FAILED:INSUFFICIENT_FUNDS',
        decline_reason: 'insufficient_funds',
        session_status: 'open',
      });
    });

    it('prompt_expired: authorize finds the prompt expired; the session reopens and no decline is counted', async () => {
      const s = await openSession(t, m);
      const a = await startMomo(t, s.id, TEST_PHONE.prompt_expired);
      expect((await authorize(t, s.id, a.attempt_reference, '123456')).json()).toMatchObject({
        status: 'expired',
        raw_status: 'PROMPT_EXPIRED',
        decline_reason: 'prompt_expired',
        session_status: 'open',
      });
      const b = await startMomo(t, s.id, TEST_PHONE.prompt_expired);
      expect((await status(t, s.id, b.attempt_reference, true)).json()).toMatchObject({ status: 'expired', refreshed: true, session_status: 'open' });
      const c = await startMomo(t, s.id, TEST_PHONE.prompt_expired);
      expect((await resend(t, s.id, c.attempt_reference)).statusCode).toBe(429); // cooldown first
      t.clock.advanceSeconds(RESEND_COOLDOWN_SECONDS);
      expect((await resend(t, s.id, c.attempt_reference)).json()).toMatchObject({ status: 'expired', session_status: 'open' });
    });

    it('stuck: 123456 is accepted but stays pending (AWAITING_CALLBACK); authorize again is 409 PAYMENT_ATTEMPT_PENDING; refresh=1 confirms', async () => {
      const s = await openSession(t, m);
      const a = await startMomo(t, s.id, TEST_PHONE.stuck, 'airteltigo');
      const first = await authorize(t, s.id, a.attempt_reference, '123456');
      expect(first.statusCode).toBe(200);
      expect(first.json()).toMatchObject({ status: 'pending', raw_status: 'AWAITING_CALLBACK', session_status: 'pending', finalized: false });
      expectError(await authorize(t, s.id, a.attempt_reference, '123456'), 409, 'PAYMENT_ATTEMPT_PENDING');
      expectError(await resend(t, s.id, a.attempt_reference), 409, 'PAYMENT_ATTEMPT_PENDING');
      // Without refresh nothing moves (no callback; the expiry sweep leaves it; only the server's
      // reconciliation job, tested in checkout-reconcile.test.ts, asks the provider).
      t.clock.advanceSeconds(MOMO_PROMPT_TTL_SECONDS + 60);
      await sweep(t.database.db, { clock: t.clock, ids: randomIds, outbox: t.outbox });
      expect((await status(t, s.id, a.attempt_reference)).json()).toMatchObject({ status: 'pending', raw_status: 'AWAITING_CALLBACK', refreshed: false, finalized: false });
      expect(await events(t, s.id)).toHaveLength(0);
      const refreshed = await status(t, s.id, a.attempt_reference, true);
      expect(refreshed.json()).toMatchObject({ status: 'succeeded', raw_status: 'SUCCESSFUL', refreshed: true, finalized: true, session_status: 'success' });
      expect((await events(t, s.id)).map((e) => e.type)).toEqual(['checkout.session.completed']);
      // A later refresh of a final attempt asks nobody.
      expect((await status(t, s.id, a.attempt_reference, true)).json()).toMatchObject({ refreshed: false, finalized: true });
    });

    it('unavailable: authorize, resend and refresh answer 503 PROVIDER_RAIL_UNAVAILABLE with retry_after_seconds; the attempt stays pending', async () => {
      const s = await openSession(t, m);
      const a = await startMomo(t, s.id, TEST_PHONE.unavailable);
      const err = expectError(await authorize(t, s.id, a.attempt_reference, '123456'), 503, 'PROVIDER_RAIL_UNAVAILABLE');
      expect(err.retry_after_seconds).toBe(30);
      expectError(await status(t, s.id, a.attempt_reference, true), 503, 'PROVIDER_RAIL_UNAVAILABLE');
      t.clock.advanceSeconds(RESEND_COOLDOWN_SECONDS);
      const r = expectError(await resend(t, s.id, a.attempt_reference), 503, 'PROVIDER_RAIL_UNAVAILABLE');
      expect(r.retry_after_seconds).toBe(30);
      // The plain status read does not call the provider.
      expect((await status(t, s.id, a.attempt_reference)).json()).toMatchObject({ status: 'pending', session_status: 'pending', refreshed: false });
    });
  });

  describe('status (GET …/provider-attempts/{attempt_reference})', () => {
    it('reports refreshed only when refresh=1 asked the provider for a pending attempt', async () => {
      const s = await openSession(t, m);
      const a = await startMomo(t, s.id);
      const plain = await status(t, s.id, a.attempt_reference);
      expect(plain.statusCode).toBe(200);
      expect(plain.json()).toMatchObject({ status: 'pending', raw_status: 'PROMPT_SENT', refreshed: false, finalized: false, session_status: 'pending', session_finalized_at: null });
      for (const q of ['?refresh=1', '?refresh=true']) {
        const r = await t.app.inject({ method: 'GET', url: `${attemptUrl(s.id, a.attempt_reference)}${q}` });
        expect(r.json()).toMatchObject({ status: 'pending', refreshed: true, finalized: false });
      }
      expect((await t.app.inject({ method: 'GET', url: `${attemptUrl(s.id, a.attempt_reference)}?refresh=0` })).json().refreshed).toBe(false);
      expect(expectError(await t.app.inject({ method: 'GET', url: `${attemptUrl(s.id, a.attempt_reference)}?refresh=maybe` }), 400, 'INVALID_ARGUMENT').message).toMatch(/refresh/);
    });

    it('finalized is true for every terminal session status, false for open and pending', async () => {
      const s = await openSession(t, m);
      const a = await startMomo(t, s.id);
      await authorize(t, s.id, a.attempt_reference, '999999');
      expect((await status(t, s.id, a.attempt_reference)).json()).toMatchObject({ status: 'declined', session_status: 'open', finalized: false });
      t.clock.advanceSeconds(86_400);
      // Lazy expiry: the status read itself expires the session.
      expect((await status(t, s.id, a.attempt_reference)).json()).toMatchObject({ status: 'declined', session_status: 'expired', finalized: true, session_finalized_at: t.clock.now().toISOString() });
      expect((await events(t, s.id)).map((e) => e.type)).toEqual(['checkout.session.expired']);
    });
  });

  describe('resend', () => {
    it('429 RATE_LIMITED with retry_after_seconds during the 30 s cooldown, 200 after; the cooldown restarts', async () => {
      const s = await openSession(t, m);
      const a = await startMomo(t, s.id);
      const early = await resend(t, s.id, a.attempt_reference);
      const err = expectError(early, 429, 'RATE_LIMITED');
      expect(err.retry_after_seconds).toBe(RESEND_COOLDOWN_SECONDS);
      expect(early.headers['retry-after']).toBe(String(RESEND_COOLDOWN_SECONDS));
      expect((await status(t, s.id, a.attempt_reference)).json().resend_available_in_seconds).toBe(30);

      t.clock.advanceSeconds(12);
      expect(expectError(await resend(t, s.id, a.attempt_reference), 429, 'RATE_LIMITED').retry_after_seconds).toBe(18);
      expect((await status(t, s.id, a.attempt_reference)).json().resend_available_in_seconds).toBe(18);

      t.clock.advanceSeconds(18);
      const ok = await resend(t, s.id, a.attempt_reference);
      expect(ok.statusCode, ok.body).toBe(200);
      expect(ok.json()).toMatchObject({ status: 'pending', raw_status: 'PROMPT_SENT', session_status: 'pending', resend_available_in_seconds: 30 });
      expect(expectError(await resend(t, s.id, a.attempt_reference), 429, 'RATE_LIMITED').retry_after_seconds).toBe(30);
      const row = await t.database.db.selectFrom('payment_attempts').select(['resend_count', 'code_sent_at']).where('id', '=', a.attempt_reference).executeTakeFirstOrThrow();
      expect(row).toEqual({ resend_count: 1, code_sent_at: t.clock.now().toISOString() });
      // The code still works after a resend.
      expect((await authorize(t, s.id, a.attempt_reference, '123456')).json().session_status).toBe('success');
      // Once final, resend is a conflict, not a new prompt.
      expectError(await resend(t, s.id, a.attempt_reference), 409, 'STATE_CONFLICT');
    });
  });

  describe('request encodings', () => {
    it('starts attempts from urlencoded and multipart bodies too', async () => {
      for (const encoding of ['urlencoded', 'multipart'] as const) {
        const s = await openSession(t, m);
        const res = await post(t.app, `${sessionUrl(s.id)}/provider-attempts`, { rail: 'momo', amount_minor: 10_100, operator: 'mtn', phone: '0241234567' }, { encoding });
        expect(res.statusCode, res.body).toBe(201);
        const code = await post(t.app, `${attemptUrl(s.id, res.json().attempt_reference)}/authorize`, { code: '123456' }, { encoding });
        expect(code.json()).toMatchObject({ status: 'succeeded', session_status: 'success' });
      }
    });

    it('resend takes no body: an empty body with Content-Type application/json is accepted; bodies elsewhere are still required', async () => {
      const s = await openSession(t, m);
      const a = await startMomo(t, s.id);
      t.clock.advanceSeconds(RESEND_COOLDOWN_SECONDS);
      const res = await t.app.inject({ method: 'POST', url: `${attemptUrl(s.id, a.attempt_reference)}/resend`, headers: { 'content-type': 'application/json' } });
      expect(res.statusCode, res.body).toBe(200);
      const url = `${attemptUrl(s.id, a.attempt_reference)}/authorize`;
      const empty = await t.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json' } });
      expect(expectError(empty, 400, 'INVALID_ARGUMENT').message).toMatch(/^body: a JSON body is required/);
      expect(expectError(await t.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json' }, payload: '{"code":' }), 400, 'INVALID_ARGUMENT').message).toBe('body: malformed JSON');
      expectError(await t.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json' }, payload: '{"code":"123456","__proto__":{"x":1}}' }), 400, 'INVALID_ARGUMENT');
      expect((await status(t, s.id, a.attempt_reference)).json().status).toBe('pending');
    });
  });

  describe('prompt expiry', () => {
    it(`after ${MOMO_PROMPT_TTL_SECONDS} s a prompt is expired on the next authorize (the code no longer works)`, async () => {
      const s = await openSession(t, m);
      const a = await startMomo(t, s.id);
      t.clock.advanceSeconds(MOMO_PROMPT_TTL_SECONDS - 1);
      expect((await status(t, s.id, a.attempt_reference, true)).json()).toMatchObject({ status: 'pending', refreshed: true });
      t.clock.advanceSeconds(1);
      expect((await authorize(t, s.id, a.attempt_reference, '123456')).json()).toMatchObject({ status: 'expired', raw_status: 'PROMPT_EXPIRED', session_status: 'open' });
      expect(await events(t, s.id)).toHaveLength(0);
    });

    it('the sweeper expires a stale prompt and reopens the session', async () => {
      const s = await openSession(t, m);
      const a = await startMomo(t, s.id);
      const deps = { clock: t.clock, ids: randomIds, outbox: t.outbox };
      t.clock.advanceSeconds(MOMO_PROMPT_TTL_SECONDS - 1);
      await sweep(t.database.db, deps);
      expect((await sessionRow(t, s.id)).status).toBe('pending');
      t.clock.advanceSeconds(1);
      const swept = await sweep(t.database.db, deps);
      expect(swept.expiredAttempts).toBeGreaterThanOrEqual(1);
      expect((await sessionRow(t, s.id)).status).toBe('open');
      expect((await status(t, s.id, a.attempt_reference)).json()).toMatchObject({ status: 'expired', raw_status: 'PROMPT_EXPIRED', decline_reason: 'prompt_expired', session_status: 'open' });
      expect((await history(t, s.id)).at(-1)).toMatchObject({ from_status: 'pending', to_status: 'open', cause: expect.stringContaining('prompt expired') });
      // The payer can start again.
      expect((await startMomo(t, s.id)).status).toBe('pending');
    });
  });
});
