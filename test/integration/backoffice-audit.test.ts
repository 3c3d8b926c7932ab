import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../support/app';
import { BO, call, errorCode, sessionWithSlip, staff } from '../support/backoffice';

describe('back-office audit trail (GET /audit)', () => {
  let t: TestContext;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t.close());

  it('records who did what, when, with before/after; admins and supervisors read it, nobody edits it', async () => {
    const m = await t.merchant('Audit Merchant');
    const teller = await staff(t, 'teller');
    const sup = await staff(t, 'supervisor');
    const admin = await staff(t, 'admin');
    const fin = await staff(t, 'finance', { merchantId: m.merchant_id });
    const slip = await sessionWithSlip(t, m);
    const dep = (await call(t, teller, 'POST', `/cash-slips/${slip.slip_token}/deposits`, { amount_minor: slip.amount_minor })).json().deposit.id as string;
    t.clock.advanceSeconds(5);
    await call(t, sup, 'POST', `/deposits/${dep}/approve`);
    await t.app.inject({ method: 'POST', url: `${BO}/auth/login`, payload: { username: teller.username, password: 'wrong password' } });

    const res = await call(t, admin, 'GET', `/audit?target_id=${dep}`);
    expect(res.statusCode).toBe(200);
    const entries = res.json().entries as Array<{ action: string; actor: { id: string; username: string; role: string }; at: string; before: unknown; after: unknown }>;
    expect(entries.map((e) => e.action)).toEqual(['deposit.approve', 'deposit.record']);
    expect(entries[0]).toMatchObject({
      actor: { id: sup.id, username: sup.username, role: 'supervisor' },
      before: { deposit_status: 'under_review', session_status: 'pending' },
      after: { deposit_status: 'approved', slip_status: 'used', session_status: 'success' },
    });
    expect(entries[1]).toMatchObject({ actor: { id: teller.id, role: 'teller' }, after: { amount_minor: slip.amount_minor, session_status: 'pending' } });
    expect(Date.parse(entries[0]!.at) - Date.parse(entries[1]!.at)).toBe(5000);

    const bySup = await call(t, sup, 'GET', `/audit?action=auth.login_failed&actor=${teller.username}`);
    expect(bySup.statusCode).toBe(200);
    expect(bySup.json().entries[0]).toMatchObject({ action: 'auth.login_failed', after: { reason: 'wrong password' } });
    expect((await call(t, admin, 'GET', '/audit?action=auth.login')).json().total).toBeGreaterThanOrEqual(4);

    for (const who of [teller, fin]) {
      const refused = await call(t, who, 'GET', '/audit');
      expect(refused.statusCode).toBe(403);
      expect(errorCode(refused)).toBe('FORBIDDEN');
    }
    await expect(sql`UPDATE audit_log SET action = 'x'`.execute(t.database.db)).rejects.toThrow(/append-only/);
    await expect(sql`DELETE FROM audit_log`.execute(t.database.db)).rejects.toThrow(/append-only/);
    // No route can change it either.
    const put = await t.app.inject({ method: 'DELETE', url: `${BO}/audit`, headers: { authorization: `Bearer ${admin.token}` } });
    expect(put.statusCode).toBe(404);
  });

  it('sorts by action, staff member or time on the server; an unknown sort is 400', async () => {
    const admin = await staff(t, 'admin');
    type Entry = { id: string; action: string; at: string; actor: { username: string } };
    const byAction = (await call(t, admin, 'GET', '/audit?sort=action&dir=asc&limit=200')).json() as { entries: Entry[]; total: number };
    const actions = byAction.entries.map((e) => e.action);
    expect(new Set(actions).size).toBeGreaterThan(2);
    expect(actions).toEqual([...actions].sort());
    const desc = (await call(t, admin, 'GET', '/audit?sort=action&dir=desc&limit=200')).json() as { entries: Entry[] };
    expect(desc.entries[0]!.action).toBe(actions.at(-1));
    const byActor = (await call(t, admin, 'GET', '/audit?sort=actor&dir=asc&limit=200')).json() as { entries: Entry[] };
    const actors = byActor.entries.map((e) => e.actor.username);
    expect(actors).toEqual([...actors].sort());
    const oldest = (await call(t, admin, 'GET', '/audit?sort=at&dir=asc&limit=2&offset=1')).json() as { entries: Entry[]; total: number };
    const all = (await call(t, admin, 'GET', '/audit?sort=at&dir=asc&limit=200')).json() as { entries: Entry[] };
    expect(oldest.entries.map((e) => e.id)).toEqual(all.entries.slice(1, 3).map((e) => e.id));
    expect(oldest.total).toBe(byAction.total);
    for (const bad of ['sort=actor_username', 'sort=at;drop', 'dir=up']) {
      const res = await call(t, admin, 'GET', `/audit?${bad}`);
      expect(res.statusCode, bad).toBe(400);
      expect(errorCode(res)).toBe('INVALID_ARGUMENT');
    }
  });

  it('logout is audited', async () => {
    const s = await staff(t, 'admin');
    await call(t, s, 'POST', '/auth/logout');
    const other = await staff(t, 'admin');
    const res = await call(t, other, 'GET', `/audit?action=auth.logout&actor=${s.username}`);
    expect(res.json().total).toBe(1);
  });
});
