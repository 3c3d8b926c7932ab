import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../support/app';
import { BO, call, errorCode, PASSWORD, staff } from '../support/backoffice';

describe('a staff member’s language (GET /me, POST /me/language)', () => {
  let t: TestContext;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t.close());

  const auditOf = (target: string) =>
    t.database.db.selectFrom('audit_log').selectAll().where('action', '=', 'auth.language_change').where('target_id', '=', target).execute();

  it('is null until chosen, then kept on the account for every later sign-in', async () => {
    const teller = await staff(t, 'teller');
    expect((await call(t, teller, 'GET', '/me')).json().user.language).toBeNull();

    const set = await call(t, teller, 'POST', '/me/language', { language: 'fr' });
    expect(set.statusCode).toBe(200);
    expect(set.json().user).toMatchObject({ id: teller.id, role: 'teller', language: 'fr' });

    const again = await t.app.inject({ method: 'POST', url: `${BO}/auth/login`, payload: { username: teller.username, password: PASSWORD } });
    expect(again.statusCode).toBe(200);
    expect((await call(t, again.json().token as string, 'GET', '/me')).json().user.language).toBe('fr');

    const [entry, ...rest] = await auditOf(teller.id);
    expect(rest).toHaveLength(0);
    expect(JSON.parse(String(entry!.before))).toEqual({ language: null });
    expect(JSON.parse(String(entry!.after))).toEqual({ language: 'fr' });

    // The same choice again changes nothing and is not audited twice; null forgets it.
    expect((await call(t, teller, 'POST', '/me/language', { language: 'fr' })).statusCode).toBe(200);
    expect(await auditOf(teller.id)).toHaveLength(1);
    const cleared = await call(t, teller, 'POST', '/me/language', { language: null });
    expect(cleared.json().user.language).toBeNull();
    expect(await auditOf(teller.id)).toHaveLength(2);
  });

  it('is each account’s own: one staff member’s choice does not change another’s', async () => {
    const admin = await staff(t, 'admin');
    const finance = await staff(t, 'supervisor');
    await call(t, admin, 'POST', '/me/language', { language: 'fr' });
    expect((await call(t, finance, 'GET', '/me')).json().user.language).toBeNull();
    expect((await call(t, admin, 'GET', '/me')).json().user.language).toBe('fr');
  });

  it('refuses a language the back office does not speak, naming the field, and needs a sign-in', async () => {
    const supervisor = await staff(t, 'supervisor');
    for (const body of [{ language: 'de' }, { language: 'FR' }, {}, { language: 'fr', extra: 1 }]) {
      const res = await call(t, supervisor, 'POST', '/me/language', body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(errorCode(res)).toBe('INVALID_ARGUMENT');
    }
    const bad = await call(t, supervisor, 'POST', '/me/language', { language: 'de' });
    expect(bad.json().error.message).toMatch(/^language: /);
    expect((await call(t, supervisor, 'GET', '/me')).json().user.language).toBeNull();
    expect((await call(t, null, 'POST', '/me/language', { language: 'fr' })).statusCode).toBe(401);
  });
});
