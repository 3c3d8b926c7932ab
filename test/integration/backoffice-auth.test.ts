import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../server/lib/hash';
import { randomIds } from '../../server/lib/ids';
import { createStaff } from '../../server/modules/auth/staff.service';
import { createTestApp, type TestContext } from '../support/app';
import { BO, call, errorCode, PASSWORD, staff } from '../support/backoffice';

describe('back-office staff sign-in (POST /auth/login, /auth/logout, GET /me)', () => {
  let t: TestContext;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t.close());

  const login = (username: string, password: string, remoteAddress = '10.0.0.1') =>
    t.app.inject({ method: 'POST', url: `${BO}/auth/login`, payload: { username, password }, remoteAddress });

  it('answers 200 with a random token and the user; only the token hash is stored, with an expiry', async () => {
    const user = await createStaff(t.database.db, t.clock, randomIds, { username: 'kofi.teller', password: PASSWORD, role: 'teller' });
    const res = await login('kofi.teller', PASSWORD);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.user).toEqual({ id: user.id, username: 'kofi.teller', role: 'teller' });
    expect(body.token).toMatch(/^stf_[A-Za-z0-9]{43}$/);
    const second = (await login('kofi.teller', PASSWORD)).json();
    expect(second.token).not.toBe(body.token);
    const rows = await t.database.db.selectFrom('staff_sessions').selectAll().where('staff_id', '=', user.id).execute();
    expect(rows).toHaveLength(2);
    expect(rows.map((r) => r.token_hash)).toContain(sha256Hex(body.token));
    const raw = JSON.stringify(await t.database.db.selectFrom('staff_sessions').selectAll().execute());
    expect(raw).not.toContain(body.token);
    expect(Date.parse(body.expires_at) - t.clock.now().getTime()).toBe(12 * 3600 * 1000);
  });

  it('refuses a wrong password and an unknown username alike with 401 UNAUTHORIZED', async () => {
    await createStaff(t.database.db, t.clock, randomIds, { username: 'ama.super', password: PASSWORD, role: 'supervisor' });
    const wrong = await login('ama.super', 'not the password', '10.0.0.2');
    expect(wrong.statusCode).toBe(401);
    expect(errorCode(wrong)).toBe('UNAUTHORIZED');
    const unknown = await login('nobody.here', PASSWORD, '10.0.0.2');
    expect(unknown.statusCode).toBe(401);
    // The same answer but for the request's own id.
    const withoutId = (body: { error: Record<string, unknown> }) => ({ ...body.error, request_id: undefined });
    expect(withoutId(unknown.json())).toEqual(withoutId(wrong.json()));
  });

  it('validates the body: 400 INVALID_ARGUMENT naming the field', async () => {
    const res = await t.app.inject({ method: 'POST', url: `${BO}/auth/login`, payload: { username: 'x' } });
    expect(res.statusCode).toBe(400);
    expect(errorCode(res)).toBe('INVALID_ARGUMENT');
    expect(res.json().error.message).toMatch(/^password/);
  });

  it('GET /me needs a valid token: 401 without, with a malformed or unknown one', async () => {
    const s = await staff(t, 'admin');
    for (const token of [null, 'garbage', `stf_${'A'.repeat(43)}`]) {
      const res = await call(t, token, 'GET', '/me');
      expect(res.statusCode).toBe(401);
      expect(errorCode(res)).toBe('UNAUTHORIZED');
    }
    const ok = await call(t, s, 'GET', '/me');
    expect(ok.statusCode).toBe(200);
    expect(ok.json().user).toMatchObject({ id: s.id, username: s.username, role: 'admin', merchant_id: null, branch_id: null });
  });

  it('every other back-office call is 401 without a token', async () => {
    for (const [method, url] of [
      ['GET', '/cash-slips/slp_x'],
      ['POST', '/cash-slips/slp_x/deposits'],
      ['GET', '/deposits'],
      ['POST', '/deposits/dep_x/approve'],
      ['POST', '/deposits/dep_x/reject'],
      ['GET', '/sessions'],
      ['GET', '/audit'],
      ['POST', '/auth/logout'],
    ] as const) {
      const res = await call(t, null, method, url, method === 'POST' ? {} : undefined);
      expect(res.statusCode, `${method} ${url}`).toBe(401);
      expect(errorCode(res)).toBe('UNAUTHORIZED');
    }
  });

  it('logout revokes the token; other tokens of the same user keep working', async () => {
    const a = await staff(t, 'supervisor');
    const again = (await login(a.username, PASSWORD, '10.0.0.9')).json().token as string;
    const out = await call(t, a, 'POST', '/auth/logout');
    expect(out.statusCode).toBe(204);
    expect((await call(t, a, 'GET', '/me')).statusCode).toBe(401);
    expect((await call(t, again, 'GET', '/me')).statusCode).toBe(200);
  });

  it('a token stops working when it expires', async () => {
    const s = await staff(t, 'finance', { merchantId: (await t.merchant()).merchant_id });
    // Used every 25 minutes (inside the idle limit) until a second before the 12-hour expiry.
    for (let used = 0; used < 12 * 3600 - 1; ) {
      const step = Math.min(25 * 60, 12 * 3600 - 1 - used);
      t.clock.advanceSeconds(step);
      used += step;
      expect((await call(t, s, 'GET', '/me')).statusCode).toBe(200);
    }
    t.clock.advanceSeconds(2);
    expect((await call(t, s, 'GET', '/me')).statusCode).toBe(401);
  });

  it('a disabled staff member can neither sign in nor use a token issued before', async () => {
    const s = await staff(t, 'teller');
    await t.database.db.updateTable('staff_users').set({ disabled_at: t.clock.now().toISOString() }).where('id', '=', s.id).execute();
    expect((await call(t, s, 'GET', '/me')).statusCode).toBe(401);
    expect((await login(s.username, PASSWORD, '10.0.0.3')).statusCode).toBe(401);
  });

  it('throttles repeated failures per username and address: 429 RATE_LIMITED with retry_after_seconds, even for the right password', async () => {
    await createStaff(t.database.db, t.clock, randomIds, { username: 'yaw.target', password: PASSWORD, role: 'teller' });
    for (let i = 0; i < 5; i++) expect((await login('yaw.target', `wrong-${i}`, '10.9.9.9')).statusCode).toBe(401);
    const locked = await login('yaw.target', PASSWORD, '10.9.9.9');
    expect(locked.statusCode).toBe(429);
    expect(errorCode(locked)).toBe('RATE_LIMITED');
    const retry = locked.json().error.retry_after_seconds as number;
    expect(retry).toBeGreaterThan(0);
    expect(retry).toBeLessThanOrEqual(15 * 60);
    expect(locked.headers['retry-after']).toBe(String(retry));
    // Another address is not locked out by someone else's guessing.
    expect((await login('yaw.target', PASSWORD, '10.8.8.8')).statusCode).toBe(200);
    t.clock.advanceSeconds(retry);
    expect((await login('yaw.target', PASSWORD, '10.9.9.9')).statusCode).toBe(200);
    // Success clears the count.
    for (let i = 0; i < 4; i++) await login('yaw.target', 'wrong', '10.9.9.9');
    expect((await login('yaw.target', PASSWORD, '10.9.9.9')).statusCode).toBe(200);
  });
});
