import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../support/app';
import { post } from '../support/http';
import { authorize, openSession, quoteTotal, startMomo, uniqueInvoice } from '../support/checkout';
import { call, sessionWithSlip, staff } from '../support/backoffice';
import type { CreatedIntegration } from '../../server/modules/integrations/integrations.service';
import { sweep } from '../../server/jobs/sweeper';
import { randomIds } from '../../server/lib/ids';

/** Racing requests: each contested change has exactly one winner, and the losers get a 4xx. */
describe('drill: racing requests', () => {
  let t: TestContext;
  let m: CreatedIntegration;
  beforeAll(async () => {
    t = await createTestApp();
    m = await t.merchant('Race Merchant');
  });
  afterAll(async () => t.close());

  const completedEvents = async (sessionId: string) => ({
    n: (await t.database.db.selectFrom('events').select('id').where('session_id', '=', sessionId).where('type', '=', 'checkout.session.completed').execute()).length,
  });

  it('same Idempotency-Key × 30 at once: exactly one session, every 201 is that session', async () => {
    const invoice = uniqueInvoice('RACE');
    const body = { amount_minor: 4_200, invoice_ref: invoice };
    const replies = await Promise.all(
      Array.from({ length: 30 }, () => post(t.app, '/api/v1/sessions', body, { key: m.api_key, headers: { 'idempotency-key': `race-${invoice}` } })),
    );
    for (const r of replies) expect([201, 409], r.body).toContain(r.statusCode);
    const ids = new Set(replies.filter((r) => r.statusCode === 201).map((r) => (r.json() as { id: string }).id));
    expect(ids.size).toBe(1);
    const rows = await t.database.db.selectFrom('checkout_sessions').select('id').where('invoice_ref', '=', invoice).execute();
    expect(rows.map((r) => r.id)).toEqual([...ids]);
  });

  it('authorize twice at once: one approval, one completed event', async () => {
    const s = await openSession(t, m);
    const a = await startMomo(t, s.id);
    const [one, two] = await Promise.all([authorize(t, s.id, a.attempt_reference, '123456'), authorize(t, s.id, a.attempt_reference, '123456')]);
    const codes = [one!.statusCode, two!.statusCode].sort();
    expect(codes).toEqual([200, 409]);
    expect((await completedEvents(s.id)).n).toBe(1);
  });

  it('two slips for one session at once: one payable slip', async () => {
    const s = await openSession(t, m);
    const total = await quoteTotal(t, s.id, 'cash');
    const replies = await Promise.all([0, 1].map(() => post(t.app, '/api/v1/checkout/cash-slips', { session_id: s.id, amount_minor: total })));
    expect(replies.map((r) => r.statusCode).sort()).toEqual([200, 201]);
    const tokens = new Set(replies.map((r) => (r.json() as { slip_token: string }).slip_token));
    expect(tokens.size).toBe(1);
    const live = await t.database.db.selectFrom('cash_slips').select('id').where('session_id', '=', s.id).where('status', 'in', ['active', 'under_review']).execute();
    expect(live).toHaveLength(1);
  });

  it('two approvals of one deposit at once: one approval, one completed event', async () => {
    const teller = await staff(t, 'teller');
    const [sup1, sup2] = [await staff(t, 'supervisor'), await staff(t, 'supervisor')];
    const slip = await sessionWithSlip(t, m);
    const recorded = await call(t, teller, 'POST', `/cash-slips/${slip.slip_token}/deposits`, { amount_minor: slip.amount_minor });
    expect(recorded.statusCode, recorded.body).toBe(201);
    const depositId = (recorded.json() as { deposit: { id: string } }).deposit.id;
    const replies = await Promise.all([sup1!, sup2!, sup1!].map((who) => call(t, who, 'POST', `/deposits/${depositId}/approve`)));
    const ok = replies.filter((r) => r.statusCode === 200);
    expect(ok).toHaveLength(1);
    for (const r of replies) if (r.statusCode !== 200) expect(r.statusCode, r.body).toBe(409);
    expect((await completedEvents(slip.session_id)).n).toBe(1);
  });

  it('expiry racing a payment: one terminal state and one event, whichever wins', async () => {
    for (let i = 0; i < 5; i++) {
      const s = await openSession(t, m, { expires_in_seconds: 60 });
      const total = await quoteTotal(t, s.id, 'card');
      t.clock.advanceSeconds(60); // due now: the sweeper and the payment race for the session
      const [paid] = await Promise.all([
        post(t.app, `/api/v1/checkout/sessions/${s.id}/card-payments`, { amount_minor: total, card_number: '4242424242424242', expiry_month: '12', expiry_year: '2099', cvc: '123' }),
        sweep(t.database.db, { clock: t.clock, ids: randomIds, outbox: t.outbox }),
      ]);
      const row = await t.database.db.selectFrom('checkout_sessions').select('status').where('id', '=', s.id).executeTakeFirstOrThrow();
      const events = await t.database.db.selectFrom('events').select('type').where('session_id', '=', s.id).execute();
      expect(events, JSON.stringify(events)).toHaveLength(1);
      if (paid!.statusCode < 300) {
        expect(row.status).toBe('success');
        expect(events[0]!.type).toBe('checkout.session.completed');
      } else {
        expect(paid!.statusCode, paid!.body).toBe(409);
        expect(row.status).toBe('expired');
        expect(events[0]!.type).toBe('checkout.session.expired');
      }
    }
  });
});
