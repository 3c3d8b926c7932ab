import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../support/app';
import { envelope } from '../support/http';
import { BO, PASSWORD, staff } from '../support/backoffice';
import { createStaff } from '../../server/modules/auth/staff.service';
import { randomIds } from '../../server/lib/ids';

/** Separate rate-limit buckets chosen from the matched route, not the raw URL. */
describe('rate-limit buckets', () => {
  let t: TestContext;
  beforeAll(async () => {
    t = await createTestApp({ rateLimitPerMin: 3 });
  });
  afterAll(async () => t.close());

  const expect429 = (res: { statusCode: number; json(): unknown }) => {
    expect(res.statusCode).toBe(429);
    expect(envelope(res as never).code).toBe('RATE_LIMITED');
  };
  const newUser = async (role: 'teller' | 'supervisor' = 'teller') => {
    const username = `u${Math.random().toString(36).slice(2, 10)}`;
    await createStaff(t.database.db, t.clock, randomIds, { username, password: PASSWORD, role });
    return username;
  };

  it('a teller signs in after payers used up the shared IP’s hosted-checkout budget', async () => {
    const ip = '203.0.113.10';
    for (let i = 0; i < 3; i++) expect((await t.app.inject({ method: 'GET', url: '/api/v1/checkout/options', remoteAddress: ip })).statusCode).toBe(200);
    expect429(await t.app.inject({ method: 'GET', url: '/api/v1/checkout/options', remoteAddress: ip }));
    const username = await newUser();
    const login = await t.app.inject({ method: 'POST', url: `${BO}/auth/login`, remoteAddress: ip, payload: { username, password: PASSWORD } });
    expect(login.statusCode, login.body).toBe(200);
  });

  it('counts back-office calls per staff token: one teller’s calls never limit another’s on the same IP', async () => {
    const a = await staff(t, 'teller');
    const b = await staff(t, 'teller');
    const me = (token: string) => t.app.inject({ method: 'GET', url: `${BO}/me`, remoteAddress: '203.0.113.20', headers: { authorization: `Bearer ${token}` } });
    for (let i = 0; i < 3; i++) expect((await me(a.token)).statusCode).toBe(200);
    expect429(await me(a.token));
    expect((await me(b.token)).statusCode).toBe(200);
    // Payers on that IP are not affected either.
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/checkout/options', remoteAddress: '203.0.113.20' })).statusCode).toBe(200);
  });

  it('answers 401 to a made-up staff token until that IP’s failed-authentication bucket is exhausted', async () => {
    const bad = () => `stf_${'x'.repeat(39)}${Math.random().toString(36).slice(2, 6)}`;
    const me = (token: string, ip: string) => t.app.inject({ method: 'GET', url: `${BO}/me`, remoteAddress: ip, headers: { authorization: `Bearer ${token}` } });
    for (let i = 0; i < 3; i++) expect((await me(bad(), '203.0.113.30')).statusCode).toBe(401);
    expect429(await me(bad(), '203.0.113.30'));
    // Another IP still gets 401, and a valid token from the limited IP still works.
    expect((await me(bad(), '203.0.113.31')).statusCode).toBe(401);
    const c = await staff(t, 'supervisor');
    expect((await me(c.token, '203.0.113.30')).statusCode).toBe(200);
  });

  it('limits a percent-encoded path by the route it reaches: GET /%61pi/v1/checkout/options', async () => {
    const ip = '203.0.113.40';
    for (let i = 0; i < 3; i++) expect((await t.app.inject({ method: 'GET', url: '/%61pi/v1/checkout/options', remoteAddress: ip })).statusCode).toBe(200);
    expect429(await t.app.inject({ method: 'GET', url: '/%61pi/v1/checkout/options', remoteAddress: ip }));
    expect429(await t.app.inject({ method: 'GET', url: '/api/v1/checkout/options', remoteAddress: ip }));
  });

  it('limits staff sign-in per IP in its own bucket, encoded or not: POST /%61pi/backoffice/v1/auth/login', async () => {
    const ip = '203.0.113.50';
    const login = (url: string, username: string) => t.app.inject({ method: 'POST', url, remoteAddress: ip, payload: { username, password: 'wrong password!' } });
    for (let i = 0; i < 3; i++) expect((await login('/%61pi/backoffice/v1/auth/login', `nobody${i}`)).statusCode).toBe(401);
    expect429(await login('/%61pi/backoffice/v1/auth/login', 'nobody9'));
    expect429(await login(`${BO}/auth/login`, 'nobody10'));
    // The sign-in bucket is not the payers' one.
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/checkout/options', remoteAddress: ip })).statusCode).toBe(200);
  });
});
