import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../support/app';
import { BO, call, errorCode, PASSWORD, staff, type Staff } from '../support/backoffice';

// Own password change, forced change, admin reset and role change.
let t: TestContext;
let admin: Staff;
beforeAll(async () => {
  t = await createTestApp();
  admin = await staff(t, 'admin');
});
afterAll(async () => t.close());

const login = (username: string, password: string) => t.app.inject({ method: 'POST', url: `${BO}/auth/login`, payload: { username, password }, remoteAddress: '10.7.7.7' });
const auditOf = (action: string, target: string) =>
  t.database.db.selectFrom('audit_log').selectAll().where('action', '=', action).where('target_id', '=', target).execute();

describe('passwords chosen by an admin are temporary', () => {
  it('an admin cannot set a common password (12345678 was accepted before)', async () => {
    for (const password of ['12345678', 'Password2025!', '123456789012']) {
      const res = await call(t, admin, 'POST', '/admin/staff', { username: `weak${password.length}`, full_name: 'Esi Mensah', password, role: 'teller' });
      expect(res.statusCode, password).toBe(400);
      expect(res.json().error.message).toMatch(/^password: /);
    }
  });

  it('a user an admin created must choose their own password before anything else', async () => {
    const created = await call(t, admin, 'POST', '/admin/staff', { username: 'esi.new', full_name: 'Esi Mensah', password: 'temporary pass 4821', role: 'teller' });
    expect(created.statusCode, created.body).toBe(201);
    const first = await login('esi.new', 'temporary pass 4821');
    expect(first.json()).toMatchObject({ must_change_password: true });
    const token = first.json().token as string;
    const blocked = await call(t, token, 'GET', '/deposits');
    expect(blocked.statusCode).toBe(403);
    expect(errorCode(blocked)).toBe('PASSWORD_CHANGE_REQUIRED');
    expect((await call(t, token, 'GET', '/me')).json()).toMatchObject({ must_change_password: true });
    // The policy applies, and the current password must be right.
    const weak = await call(t, token, 'POST', '/auth/password', { current_password: 'temporary pass 4821', new_password: 'qwerty123456' });
    expect(weak.statusCode).toBe(400);
    expect(weak.json().error.message).toMatch(/^new_password: /);
    const wrongCurrent = await call(t, token, 'POST', '/auth/password', { current_password: 'not it at all', new_password: 'my own river phrase' });
    expect(wrongCurrent.statusCode).toBe(400);
    expect(wrongCurrent.json().error.message).toMatch(/^current_password: /);
    const changed = await call(t, token, 'POST', '/auth/password', { current_password: 'temporary pass 4821', new_password: 'my own river phrase' });
    expect(changed.statusCode, changed.body).toBe(204);
    expect((await call(t, token, 'GET', '/deposits')).statusCode).toBe(200);
    expect((await login('esi.new', 'temporary pass 4821')).statusCode).toBe(401);
    expect((await login('esi.new', 'my own river phrase')).json()).toMatchObject({ must_change_password: false });
    expect(await auditOf('auth.password_change', created.json().id)).toHaveLength(1);
  });

  it('changing your own password signs out your other sessions, keeps this one, and is throttled', async () => {
    const s = await staff(t, 'supervisor');
    const other = (await login(s.username, PASSWORD)).json().token as string;
    const res = await call(t, s, 'POST', '/auth/password', { current_password: PASSWORD, new_password: 'a brand new phrase' });
    expect(res.statusCode).toBe(204);
    expect((await call(t, s, 'GET', '/me')).statusCode).toBe(200);
    expect((await call(t, other, 'GET', '/me')).statusCode).toBe(401);
    const guesses = await Promise.all(Array.from({ length: 20 }, (_, i) => call(t, s, 'POST', '/auth/password', { current_password: `guess number ${i}`, new_password: 'yet another phrase' })));
    expect(guesses.filter((r) => r.statusCode === 400).length).toBeLessThanOrEqual(5);
    expect(guesses.filter((r) => r.statusCode === 429).length).toBeGreaterThanOrEqual(15);
  });
});

describe('admin: password reset and role change, both audited', () => {
  it('a reset signs the user out, forces a change, and never puts the password in the audit trail', async () => {
    const teller = await staff(t, 'teller');
    const res = await call(t, admin, 'POST', `/admin/staff/${teller.id}/reset-password`, { password: 'reset phrase 90210' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().staff.find((u: { id: string }) => u.id === teller.id)).toMatchObject({ must_change_password: true });
    expect((await call(t, teller, 'GET', '/me')).statusCode).toBe(401);
    const again = await login(teller.username, 'reset phrase 90210');
    expect(again.json()).toMatchObject({ must_change_password: true });
    const [entry] = await auditOf('staff.password_reset', teller.id);
    expect(entry).toMatchObject({ actor_id: admin.id });
    expect(JSON.stringify(await t.database.db.selectFrom('audit_log').selectAll().execute())).not.toContain('reset phrase 90210');
    const otherTeller = await staff(t, 'teller');
    expect((await call(t, otherTeller, 'POST', `/admin/staff/${admin.id}/reset-password`, { password: 'reset phrase 90210' })).statusCode).toBe(403);
    expect((await call(t, admin, 'POST', `/admin/staff/${admin.id}/reset-password`, { password: 'reset phrase 90210' })).statusCode).toBe(409);
  });

  it('a role change takes effect at once, signs the user out, and records before and after', async () => {
    const m = await t.merchant();
    const teller = await staff(t, 'teller');
    const needsMerchant = await call(t, admin, 'POST', `/admin/staff/${teller.id}/role`, { role: 'finance' });
    expect(needsMerchant.statusCode).toBe(400);
    expect(errorCode(needsMerchant)).toBe('MERCHANT_ID_REQUIRED');
    const res = await call(t, admin, 'POST', `/admin/staff/${teller.id}/role`, { role: 'finance', merchant_id: m.merchant_id });
    expect(res.statusCode, res.body).toBe(200);
    expect((await call(t, teller, 'GET', '/me')).statusCode).toBe(401);
    const me = (await login(teller.username, PASSWORD)).json() as { user: { role: string } };
    expect(me.user.role).toBe('finance');
    const [entry] = await auditOf('staff.role_change', teller.id);
    expect(JSON.parse(entry!.before!)).toMatchObject({ role: 'teller' });
    expect(JSON.parse(entry!.after!)).toMatchObject({ role: 'finance', merchant_id: m.merchant_id });
  });

  it('an admin cannot change their own role, and the last admin cannot be demoted', async () => {
    expect((await call(t, admin, 'POST', `/admin/staff/${admin.id}/role`, { role: 'teller' })).statusCode).toBe(409);
    const second = await staff(t, 'admin');
    // Two admins: the second may demote the first... but not once it is the only one left.
    expect((await call(t, second, 'POST', `/admin/staff/${admin.id}/role`, { role: 'supervisor' })).statusCode).toBe(200);
    const third = await staff(t, 'admin');
    await t.database.db.updateTable('staff_users').set({ disabled_at: t.clock.now().toISOString() }).where('id', '=', second.id).execute();
    const last = await call(t, third, 'POST', `/admin/staff/${second.id}/role`, { role: 'teller' });
    expect(last.statusCode).toBe(200);
    // `third` is now the only active admin; nobody else is an admin to demote it, and it cannot demote itself.
    expect((await call(t, third, 'POST', `/admin/staff/${third.id}/role`, { role: 'teller' })).statusCode).toBe(409);
  });
});
