import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../../server/app';
import { createTestApp, type TestContext } from '../support/app';
import { get, post } from '../support/http';
import {
  CHECKOUT,
  attemptUrl,
  authorize,
  events,
  expectError,
  history,
  openSession,
  payByCard,
  publicSession,
  quoteTotal,
  sessionRow,
  sessionUrl,
  startAttempt,
  startMomo,
} from '../support/checkout';
import { MAX_DECLINED_ATTEMPTS } from '../../server/domain/session-transitions';
import { sweep } from '../../server/jobs/sweeper';
import { randomIds } from '../../server/lib/ids';
import type { CreatedIntegration } from '../../server/modules/integrations/integrations.service';

describe('session lifecycle: failed, expired', () => {
  let t: TestContext;
  let m: CreatedIntegration;
  beforeAll(async () => {
    t = await createTestApp();
    m = await t.merchant('Lifecycle Merchant');
  });
  afterAll(async () => t.close());

  it('five declines of any kind (cards and wrong Mobile Money codes) leave the session open: the sixth try pays it', async () => {
    const s = await openSession(t, m);
    for (let i = 0; i < 5; i++) {
      if (i % 2 === 0) {
        expect((await payByCard(t, s.id, '4000000000000002')).json()).toMatchObject({ status: 'declined', session_status: 'open' });
      } else {
        const a = await startMomo(t, s.id);
        expect((await authorize(t, s.id, a.attempt_reference, '000000')).json()).toMatchObject({ status: 'declined', decline_reason: 'invalid_code', session_status: 'open' });
      }
    }
    expect((await publicSession(t, s.id)).status).toBe('open');
    const a = await startMomo(t, s.id);
    expect((await authorize(t, s.id, a.attempt_reference, '123456')).json()).toMatchObject({ status: 'succeeded', session_status: 'success' });
    expect((await events(t, s.id)).map((e) => e.type)).toEqual(['checkout.session.completed']);
  });

  it('a decline fails the session when no payment can complete any more (the integration accepts no rail)', async () => {
    const s = await openSession(t, m);
    const a = await startMomo(t, s.id);
    await t.database.db.updateTable('integrations').set({ allowed_rails: '[]' }).where('id', '=', m.integration_id).execute();
    try {
      expect((await authorize(t, s.id, a.attempt_reference, '000000')).json()).toMatchObject({ status: 'declined', session_status: 'failed' });
      expect((await events(t, s.id)).map((e) => e.type)).toEqual(['checkout.session.failed']);
      expect((await history(t, s.id)).at(-1)?.cause).toBe('declined, and no payment method can complete any more');
    } finally {
      await t.database.db.updateTable('integrations').set({ allowed_rails: JSON.stringify(['momo', 'card', 'bank_transfer', 'cash']) }).where('id', '=', m.integration_id).execute();
    }
  });

  it(`fails the session at the anti-abuse cap of ${MAX_DECLINED_ATTEMPTS} declined attempts (card and Mobile Money count alike), with one failed event`, async () => {
    expect(MAX_DECLINED_ATTEMPTS).toBe(20);
    const s = await openSession(t, m);
    for (let i = 0; i < MAX_DECLINED_ATTEMPTS - 1; i++) {
      if (i % 2 === 0) {
        expect((await payByCard(t, s.id, '4000000000000002')).json()).toMatchObject({ status: 'declined', session_status: 'open' });
      } else {
        const a = await startMomo(t, s.id);
        expect((await authorize(t, s.id, a.attempt_reference, '000000')).json()).toMatchObject({ status: 'declined', session_status: 'open' });
      }
    }
    expect(await events(t, s.id)).toHaveLength(0);
    // The last decline arrives while the session is pending (Mobile Money): pending → open → failed.
    const last = await startMomo(t, s.id);
    const res = await authorize(t, s.id, last.attempt_reference, '000000');
    expect(res.json()).toMatchObject({ status: 'declined', session_status: 'failed', finalized: true, session_finalized_at: t.clock.now().toISOString() });
    expect((await events(t, s.id)).map((e) => e.type)).toEqual(['checkout.session.failed']);
    expect(JSON.parse((await events(t, s.id))[0]!.payload).data.session.status).toBe('failed');
    expect((await history(t, s.id)).slice(-2).map((h) => `${h.from_status}→${h.to_status}`)).toEqual(['pending→open', 'open→failed']);
    expect((await publicSession(t, s.id)).status).toBe('failed');
    // Nothing more can be paid.
    const card = { amount_minor: 10_000, card_number: '4242424242424242', expiry_month: 12, expiry_year: 2099, cvc: '123' };
    expectError(await post(t.app, `${sessionUrl(s.id)}/card-payments`, card), 409, 'SESSION_NOT_PAYABLE');
    expectError(await get(t.app, `${sessionUrl(s.id)}/quote`), 409, 'SESSION_NOT_PAYABLE');
    expectError(await post(t.app, `${CHECKOUT}/cash-slips`, { session_id: s.id, amount_minor: 10_200 }), 409, 'SESSION_NOT_PAYABLE');
    expect(await events(t, s.id)).toHaveLength(1);
  });

  it('expired prompts are not declines: they never fail a session', async () => {
    const s = await openSession(t, m);
    for (let i = 0; i < MAX_DECLINED_ATTEMPTS + 1; i++) {
      const a = await startMomo(t, s.id, '0240000003');
      expect((await authorize(t, s.id, a.attempt_reference, '123456')).json().status).toBe('expired');
    }
    expect((await publicSession(t, s.id)).status).toBe('open');
  });

  it('the sweeper expires an open session once expires_at passes: one expired event, however often it runs', async () => {
    const s = await openSession(t, m, { expires_in_seconds: 60 });
    const deps = { clock: t.clock, ids: randomIds, outbox: t.outbox };
    t.clock.advanceSeconds(59);
    await sweep(t.database.db, deps);
    expect((await sessionRow(t, s.id)).status).toBe('open');
    t.clock.advanceSeconds(1);
    const swept = await sweep(t.database.db, deps);
    expect(swept.expiredSessions).toBeGreaterThanOrEqual(1);
    const row = await sessionRow(t, s.id);
    expect(row).toMatchObject({ status: 'expired', finalized_at: t.clock.now().toISOString() });
    await sweep(t.database.db, deps);
    const evs = await events(t, s.id);
    expect(evs.map((e) => e.type)).toEqual(['checkout.session.expired']);
    expect(JSON.parse(evs[0]!.payload).data.session).toMatchObject({ id: s.id, status: 'expired' });
    expect(await history(t, s.id)).toEqual([
      { from_status: 'none', to_status: 'open', cause: 'created' },
      { from_status: 'open', to_status: 'expired', cause: 'expires_at passed while open' },
    ]);
    // The merchant sees it too.
    expect((await get(t.app, `/api/v1/sessions/${s.id}`, m.api_key)).json().status).toBe('expired');
  });

  it('expires lazily on read (no sweep): the public view, the quote, and a refused payment all keep the expiry', async () => {
    const viaRead = await openSession(t, m, { expires_in_seconds: 60 });
    const viaPay = await openSession(t, m, { expires_in_seconds: 60 });
    const viaQuote = await openSession(t, m, { expires_in_seconds: 60 });
    t.clock.advanceSeconds(60);
    expect((await publicSession(t, viaRead.id)).status).toBe('expired');
    expect((await events(t, viaRead.id)).map((e) => e.type)).toEqual(['checkout.session.expired']);

    expect(expectError(await startAttempt(t, viaPay.id, { rail: 'momo', amount_minor: 10_100, operator: 'mtn', phone: '0241234567' }), 409, 'SESSION_NOT_PAYABLE').message).toMatch(/expired/);
    expect((await sessionRow(t, viaPay.id)).status).toBe('expired');
    expect((await events(t, viaPay.id)).map((e) => e.type)).toEqual(['checkout.session.expired']);

    expectError(await get(t.app, `${sessionUrl(viaQuote.id)}/quote`), 409, 'SESSION_NOT_PAYABLE');
    expect((await events(t, viaQuote.id)).map((e) => e.type)).toEqual(['checkout.session.expired']);
  });

  it('a pending session waits for its prompt past expires_at, then expires as soon as the prompt ends', async () => {
    const s = await openSession(t, m, { expires_in_seconds: 60 });
    const a = await startMomo(t, s.id);
    t.clock.advanceSeconds(90);
    await sweep(t.database.db, { clock: t.clock, ids: randomIds, outbox: t.outbox });
    expect((await sessionRow(t, s.id)).status).toBe('pending');
    // The payer approves in time for the prompt: the payment counts.
    expect((await authorize(t, s.id, a.attempt_reference, '123456')).json()).toMatchObject({ status: 'succeeded', session_status: 'success' });

    const d = await openSession(t, m, { expires_in_seconds: 60 });
    const b = await startMomo(t, d.id);
    t.clock.advanceSeconds(90);
    expect((await authorize(t, d.id, b.attempt_reference, '000000')).json()).toMatchObject({ status: 'declined', session_status: 'expired', finalized: true });
    expect((await history(t, d.id)).map((h) => `${h.from_status}→${h.to_status}`)).toEqual(['none→open', 'open→pending', 'pending→open', 'open→expired']);
    expect((await events(t, d.id)).map((e) => e.type)).toEqual(['checkout.session.expired']);
  });

  it('the running server sweeps by itself within seconds, and a restart does not lose a due expiry', async () => {
    const s = await openSession(t, m, { expires_in_seconds: 60 });
    const app = await build({ db: t.database.db, clock: t.clock, ids: randomIds, config: t.config, logger: false, backgroundJobs: true });
    await app.ready();
    try {
      t.clock.advanceSeconds(60);
      const deadline = Date.now() + 5_000;
      while ((await sessionRow(t, s.id)).status === 'open' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect((await sessionRow(t, s.id)).status).toBe('expired');
    } finally {
      await app.close();
    }
    // Server down while a session falls due: the next start sweeps it at once.
    const later = await openSession(t, m, { expires_in_seconds: 60 });
    t.clock.advanceSeconds(3_600);
    const restarted = await build({ db: t.database.db, clock: t.clock, ids: randomIds, config: t.config, logger: false, backgroundJobs: true });
    await restarted.ready();
    try {
      const deadline = Date.now() + 2_000;
      while ((await sessionRow(t, later.id)).status === 'open' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect((await sessionRow(t, later.id)).status).toBe('expired');
      expect((await events(t, later.id)).map((e) => e.type)).toEqual(['checkout.session.expired']);
    } finally {
      await restarted.close();
    }
  });
});

describe('session lifecycle: racing requests', () => {
  let t: TestContext;
  let m: CreatedIntegration;
  let base: string;
  beforeAll(async () => {
    t = await createTestApp();
    m = await t.merchant('Race Merchant');
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
  });
  afterAll(async () => t.close());

  async function successTransitions(sessionId: string) {
    return (await history(t, sessionId)).filter((h) => h.to_status === 'success');
  }

  it('two authorizations at once (inject): exactly one wins, one success transition, one event', async () => {
    const s = await openSession(t, m);
    const a = await startMomo(t, s.id);
    const results = await Promise.all([authorize(t, s.id, a.attempt_reference, '123456'), authorize(t, s.id, a.attempt_reference, '123456')]);
    const codes = results.map((r) => r.statusCode).sort();
    expect(codes).toEqual([200, 409]);
    const loser = results.find((r) => r.statusCode === 409)!;
    // The loser either found the attempt final (STATE_CONFLICT) or arrived while the winner's
    // provider call was still under way (PAYMENT_ATTEMPT_PENDING): which depends on timing. On
    // PostgreSQL the two overlap; on SQLite they do too since the transactions of one event-loop
    // turn commit together (server/db/sqlite-group-commit.ts): the loser's claim runs in the
    // winner's group, before the winner's provider call.
    expect(['STATE_CONFLICT', 'PAYMENT_ATTEMPT_PENDING']).toContain(loser.json().error.code);
    expect(await successTransitions(s.id)).toHaveLength(1);
    expect((await events(t, s.id)).map((e) => e.type)).toEqual(['checkout.session.completed']);
  });

  it('parallel authorizations over a real port: one success, one event', async () => {
    const s = await openSession(t, m);
    const a = await startMomo(t, s.id);
    const url = `${base}${attemptUrl(s.id, a.attempt_reference)}/authorize`;
    const send = (code: string) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code }) });
    const results = await Promise.all([send('123456'), send('123456'), send('123456'), send('000000')]);
    const bodies = await Promise.all(results.map((r) => r.json() as Promise<Record<string, unknown>>));
    const ok = results.filter((r) => r.status === 200);
    expect(ok).toHaveLength(1);
    expect(results.filter((r) => r.status === 409)).toHaveLength(3);
    const session = await publicSession(t, s.id);
    // Whichever request the server took first decided the attempt; the rest found it final.
    const winner = bodies[results.findIndex((r) => r.status === 200)]!;
    expect(session.status).toBe(winner.status === 'succeeded' ? 'success' : 'open');
    expect((await events(t, s.id)).length).toBe(session.status === 'success' ? 1 : 0);
    expect((await successTransitions(s.id)).length).toBe(session.status === 'success' ? 1 : 0);
  });

  it('parallel card payments over a real port: exactly one charge succeeds', async () => {
    const s = await openSession(t, m);
    const amount = await quoteTotal(t, s.id, 'card');
    const body = JSON.stringify({ amount_minor: amount, card_number: '4242424242424242', expiry_month: 12, expiry_year: 2099, cvc: '123' });
    const results = await Promise.all(
      Array.from({ length: 4 }, () => fetch(`${base}${sessionUrl(s.id)}/card-payments`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409]);
    const charged = await t.database.db.selectFrom('payment_attempts').select('id').where('session_id', '=', s.id).where('status', '=', 'succeeded').execute();
    expect(charged).toHaveLength(1);
    expect(await events(t, s.id)).toHaveLength(1);
  });

  it('parallel slip requests: one slip issued (201), the rest replay it (200)', async () => {
    const s = await openSession(t, m);
    const results = await Promise.all(
      Array.from({ length: 5 }, () => fetch(`${base}${CHECKOUT}/cash-slips`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ session_id: s.id, amount_minor: 10_200 }) })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 201]);
    const tokens = new Set(await Promise.all(results.map(async (r) => ((await r.json()) as { slip_token: string }).slip_token)));
    expect(tokens.size).toBe(1);
    expect(await t.database.db.selectFrom('cash_slips').select('id').where('session_id', '=', s.id).execute()).toHaveLength(1);
  });

  it('a slip and a Mobile Money attempt at once: a consistent final state, never two payable slips', async () => {
    for (let round = 0; round < 6; round++) {
      const s = await openSession(t, m);
      const momoTotal = await quoteTotal(t, s.id, 'momo');
      const slipReq = () => post(t.app, `${CHECKOUT}/cash-slips`, { session_id: s.id, amount_minor: 10_200 });
      const momoReq = () => startAttempt(t, s.id, { rail: 'momo', amount_minor: momoTotal, operator: 'mtn', phone: '0241234567' });
      const [slipRes, momoRes, slipRes2] = round % 2 === 0 ? await Promise.all([slipReq(), momoReq(), slipReq()]) : await Promise.all([momoReq(), slipReq(), slipReq()]).then(([a, b, c]) => [b, a, c]);
      expect(momoRes!.statusCode).toBe(201);
      const session = await sessionRow(t, s.id);
      expect(session.status).toBe('pending');
      const slips = await t.database.db.selectFrom('cash_slips').selectAll().where('session_id', '=', s.id).execute();
      expect(slips.filter((x) => x.status === 'active' || x.status === 'under_review').length).toBeLessThanOrEqual(1);
      for (const r of [slipRes!, slipRes2!]) {
        // Either the slip came first (issued or replayed) or the prompt did (409).
        expect([200, 201, 409]).toContain(r.statusCode);
        if (r.statusCode === 409) expect(r.json().error.code).toBe('SESSION_NOT_PAYABLE');
      }
      expect(slips.length).toBe([slipRes!, slipRes2!].some((r) => r.statusCode === 201) ? 1 : 0);
      // The prompt settles the session; a slip issued earlier is voided, never payable beside a success.
      const a = momoRes!.json();
      await authorize(t, s.id, a.attempt_reference, '123456');
      const after = await t.database.db.selectFrom('cash_slips').select('status').where('session_id', '=', s.id).execute();
      expect(after.every((x) => x.status === 'voided')).toBe(true);
      expect(await events(t, s.id)).toHaveLength(1);
    }
  });

  it('a card payment racing a Mobile Money prompt: one of them wins, the session ends with one completed event at most', async () => {
    const s = await openSession(t, m);
    // The card's total is quoted first (a quote is refused once the session is pending); then both payments race.
    const cardTotal = await quoteTotal(t, s.id, 'card');
    const [card, momo] = await Promise.all([
      post(t.app, `${sessionUrl(s.id)}/card-payments`, { amount_minor: cardTotal, card_number: '4242424242424242', expiry_month: 12, expiry_year: 2099, cvc: '123' }),
      startAttempt(t, s.id, { rail: 'momo', amount_minor: 10_100, operator: 'mtn', phone: '0241234567' }),
    ]);
    const statuses = [card.statusCode, momo.statusCode];
    // Either may be first; never both.
    expect(statuses.filter((c) => c === 201)).toHaveLength(1);
    expect(statuses.filter((c) => c === 409)).toHaveLength(1);
    const session = await sessionRow(t, s.id);
    expect(session.status).toBe(card.statusCode === 201 ? 'success' : 'pending');
    expect((await events(t, s.id)).length).toBe(card.statusCode === 201 ? 1 : 0);
  });
});
