import { afterEach, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { randomIds } from '../../server/lib/ids';
import { createStaff } from '../../server/modules/auth/staff.service';
import { createTestApp, type TestContext } from '../support/app';
import { BO, PASSWORD } from '../support/backoffice';

// The back office keeps its sign-in in an HttpOnly cookie (a reload keeps it);
// unsafe calls made with the cookie need the CSRF header and a same-origin Origin.
let t: TestContext | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const CSRF = { 'x-paydesk-csrf': '1' };

async function signIn(ctx: TestContext, headers: Record<string, string> = CSRF) {
  await createStaff(ctx.database.db, ctx.clock, randomIds, { username: 'cookie.user', password: PASSWORD, role: 'supervisor' });
  return ctx.app.inject({ method: 'POST', url: `${BO}/auth/login`, payload: { username: 'cookie.user', password: PASSWORD }, headers });
}

function cookieOf(res: LightMyRequestResponse): string {
  const header = res.headers['set-cookie'];
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) throw new Error('no Set-Cookie');
  return value;
}

describe('staff sign-in cookie', () => {
  it('the back office page gets an HttpOnly, SameSite=Strict cookie scoped to the API; the body still has the bearer token', async () => {
    t = await createTestApp();
    const res = await signIn(t);
    expect(res.statusCode).toBe(200);
    const set = cookieOf(res);
    expect(set).toMatch(/^paydesk_staff=stf_[A-Za-z0-9]{43};/);
    expect(set).toContain('HttpOnly');
    expect(set).toContain('SameSite=Strict');
    expect(set).toContain('Path=/api/backoffice');
    expect(set).not.toContain('Max-Age'); // a session cookie: closing the browser or the app signs out
    expect(set).not.toContain('Secure'); // http://paydesk.test
    expect(res.json().token).toMatch(/^stf_/);
    // The bearer token keeps working for API clients.
    const bearer = await t.app.inject({ method: 'GET', url: `${BO}/me`, headers: { authorization: `Bearer ${res.json().token}` } });
    expect(bearer.statusCode).toBe(200);
  });

  it('an API client (no CSRF header) gets no cookie', async () => {
    t = await createTestApp();
    const res = await signIn(t, {});
    expect(res.statusCode).toBe(200);
    expect(res.headers['set-cookie']).toBeUndefined();
  });

  it('is Secure behind https (PUBLIC_BASE_URL https)', async () => {
    t = await createTestApp({ publicBaseUrl: 'https://paydesk.example' });
    expect(cookieOf(await signIn(t))).toContain('Secure');
  });

  it('reads work with the cookie alone; unsafe calls need the CSRF header and a same-origin Origin; logout clears the cookie', async () => {
    t = await createTestApp();
    const app = t.app;
    const cookie = cookieOf(await signIn(t)).split(';')[0]!;
    const me = await app.inject({ method: 'GET', url: `${BO}/me`, headers: { cookie } });
    expect(me.statusCode).toBe(200);
    expect(me.json().user.username).toBe('cookie.user');
    const noHeader = await app.inject({ method: 'POST', url: `${BO}/auth/logout`, headers: { cookie } });
    expect(noHeader.statusCode).toBe(403);
    const crossSite = await app.inject({ method: 'POST', url: `${BO}/auth/logout`, headers: { cookie, ...CSRF, origin: 'https://attacker.example', host: 'paydesk.test' } });
    expect(crossSite.statusCode).toBe(403);
    expect((await app.inject({ method: 'GET', url: `${BO}/me`, headers: { cookie } })).statusCode).toBe(200);
    const out = await app.inject({ method: 'POST', url: `${BO}/auth/logout`, headers: { cookie, ...CSRF, origin: 'http://paydesk.test', host: 'paydesk.test' } });
    expect(out.statusCode).toBe(204);
    expect(cookieOf(out)).toMatch(/^paydesk_staff=;.*Max-Age=0/);
    expect((await app.inject({ method: 'GET', url: `${BO}/me`, headers: { cookie } })).statusCode).toBe(401);
  });

  it('a cross-site sign-in attempt with the header but a foreign Origin is refused', async () => {
    t = await createTestApp();
    const res = await signIn(t, { ...CSRF, origin: 'https://attacker.example', host: 'paydesk.test' });
    expect(res.statusCode).toBe(403);
    expect(res.headers['set-cookie']).toBeUndefined();
  });
});
