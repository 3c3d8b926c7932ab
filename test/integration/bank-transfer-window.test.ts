import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../support/app';
import { get } from '../support/http';
import { events, expectError, history, openSession, publicSession, quoteTotal, startAttempt, status } from '../support/checkout';
import { call, staff, type Staff } from '../support/backoffice';
import { failInserts } from '../support/stored-data';
import { sweep } from '../../server/jobs/sweeper';
import { loadConfig } from '../../server/config';
import { randomIds } from '../../server/lib/ids';
import type { CreatedIntegration } from '../../server/modules/integrations/integrations.service';

/** Bank-transfer instructions have their own window (BANK_TRANSFER_WINDOW_S); the session is pending meanwhile. */
describe('bank transfer in flight', () => {
  let t: TestContext;
  let m: CreatedIntegration;
  let admin: Staff;
  const WINDOW_S = 900;
  beforeAll(async () => {
    t = await createTestApp({ env: { BANK_TRANSFER_WINDOW_S: String(WINDOW_S) } });
    m = await t.merchant('Tema Port Authority');
    admin = await staff(t, 'admin');
  });
  afterAll(async () => t.close());

  async function startTransfer(sessionId: string) {
    const res = await startAttempt(t, sessionId, { rail: 'bank_transfer', amount_minor: await quoteTotal(t, sessionId, 'bank_transfer') });
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as { attempt_reference: string; amount_charged_minor: number; instructions: { payment_reference: string; expires_at: string } };
  }
  const bankNotifies = (reference: string, amount: number) => call(t, admin, 'POST', '/admin/sandbox/bank-transfers', { payment_reference: reference, amount_minor: amount });
  const merchantStatus = async (id: string) => (await get(t.app, `/api/v1/sessions/${id}`, m.api_key)).json().status as string;
  const deps = () => ({ clock: t.clock, ids: randomIds, outbox: t.outbox });

  it('the session is pending in both views for the window, does not expire, and a transfer inside the window pays it', async () => {
    const s = await openSession(t, m, { expires_in_seconds: 120 });
    const a = await startTransfer(s.id);
    expect(a.instructions.expires_at).toBe(new Date(t.clock.now().getTime() + WINDOW_S * 1000).toISOString());
    expect((await publicSession(t, s.id)).status).toBe('pending');
    expect(await merchantStatus(s.id)).toBe('pending');
    // The session's own expiry passes while the payer is making the transfer.
    t.clock.advanceSeconds(600);
    await sweep(t.database.db, deps());
    expect(await merchantStatus(s.id)).toBe('pending');
    expect((await publicSession(t, s.id)).pending_attempt).toMatchObject({ rail: 'bank_transfer', instructions: { expires_at: a.instructions.expires_at } });
    const res = await bankNotifies(a.instructions.payment_reference, a.amount_charged_minor);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ status: 'succeeded', session_status: 'success', finalized: true });
    expect((await events(t, s.id)).map((e) => e.type)).toEqual(['checkout.session.completed']);
    expect((await history(t, s.id)).map((h) => `${h.from_status}→${h.to_status}`)).toEqual(['none→open', 'open→pending', 'pending→success']);
  });

  it('a Mobile Money prompt started during the window is refused (409 SESSION_NOT_PAYABLE), and the transfer still confirms', async () => {
    const s = await openSession(t, m);
    const a = await startTransfer(s.id);
    const momo = await startAttempt(t, s.id, { rail: 'momo', amount_minor: 10_100, operator: 'mtn', phone: '0241234567' });
    expectError(momo, 409, 'SESSION_NOT_PAYABLE');
    expectError(await get(t.app, `/api/v1/checkout/sessions/${s.id}/quote`), 409, 'SESSION_NOT_PAYABLE');
    // A reload of the payer page asking for the same instructions replays them.
    const again = await startAttempt(t, s.id, { rail: 'bank_transfer', amount_minor: a.amount_charged_minor });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ attempt_reference: a.attempt_reference, replayed: true });
    expect((await bankNotifies(a.instructions.payment_reference, a.amount_charged_minor)).json()).toMatchObject({ session_status: 'success' });
  });

  it('when the window ends with no transfer, the sweeper hands the session back: open while its time lasts', async () => {
    const s = await openSession(t, m, { expires_in_seconds: 3600 });
    const a = await startTransfer(s.id);
    t.clock.advanceSeconds(WINDOW_S - 1);
    await sweep(t.database.db, deps());
    expect(await merchantStatus(s.id)).toBe('pending');
    t.clock.advanceSeconds(1);
    await sweep(t.database.db, deps());
    expect(await merchantStatus(s.id)).toBe('open');
    expect((await status(t, s.id, a.attempt_reference)).json()).toMatchObject({ status: 'expired', raw_status: 'TRANSFER_WINDOW_ENDED', decline_reason: 'transfer_window_ended' });
    expect(await events(t, s.id)).toHaveLength(0);
    // A late transfer is returned; the payer may pay again, by any rail.
    expectError(await bankNotifies(a.instructions.payment_reference, a.amount_charged_minor), 409, 'STATE_CONFLICT');
    expect((await publicSession(t, s.id)).status).toBe('open');
    await startTransfer(s.id);
  });

  it('…or expired, with its event, when the session’s own expiry passed during the window', async () => {
    const s = await openSession(t, m, { expires_in_seconds: 60 });
    await startTransfer(s.id);
    t.clock.advanceSeconds(WINDOW_S);
    await sweep(t.database.db, deps());
    expect(await merchantStatus(s.id)).toBe('expired');
    expect((await events(t, s.id)).map((e) => e.type)).toEqual(['checkout.session.expired']);
    expect((await history(t, s.id)).map((h) => `${h.from_status}→${h.to_status}`)).toEqual(['none→open', 'open→pending', 'pending→open', 'open→expired']);
  });

  it('BANK_TRANSFER_WINDOW_S defaults to one hour and refuses a bad value naming the variable', () => {
    expect(loadConfig({}).bankTransferWindowS).toBe(3600);
    expect(() => loadConfig({ BANK_TRANSFER_WINDOW_S: '10' })).toThrow(/BANK_TRANSFER_WINDOW_S/);
    expect(() => loadConfig({ BANK_TRANSFER_WINDOW_S: 'soon' })).toThrow(/BANK_TRANSFER_WINDOW_S/);
  });

  it('the confirmation and its audit row commit together: when the audit row cannot be written, nothing is confirmed', async () => {
    const s = await openSession(t, m);
    const a = await startTransfer(s.id);
    // A fault in the audit write (a disk error, a crash) stands in for a crash between the two writes.
    const repair = await failInserts(t.database, 'audit_log', 'audit write failed');
    try {
      expect((await bankNotifies(a.instructions.payment_reference, a.amount_charged_minor)).statusCode).toBe(500);
    } finally {
      await repair();
    }
    expect(await merchantStatus(s.id)).toBe('pending');
    expect(await events(t, s.id)).toHaveLength(0);
    const res = await bankNotifies(a.instructions.payment_reference, a.amount_charged_minor);
    expect(res.json()).toMatchObject({ status: 'succeeded', session_status: 'success' });
    const audit = await t.database.db.selectFrom('audit_log').selectAll().where('target_id', '=', a.attempt_reference).execute();
    expect(audit.map((r) => r.action)).toEqual(['sandbox.bank_transfer_confirm']);
  });
});
