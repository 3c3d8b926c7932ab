import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../support/app';

/** First run: a one-time setup link creates the first administrator of a database without staff. */
describe('first-run setup link', () => {
  let t: TestContext;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t.close());
  const setup = (body: unknown) => t.app.inject({ method: 'POST', url: '/api/backoffice/v1/setup', payload: body as object });
  const tokenOf = (link: string) => new URL(link).hash.replace('#token=', '');

  it('works once, within 30 minutes, with the printed token only; then the sign-in is the way in', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/api/backoffice/v1/setup' })).json()).toEqual({ open: false, set_up: false });
    const link = await t.app.firstRun.open('http://127.0.0.1:4610');
    expect(link).toMatch(/^http:\/\/127\.0\.0\.1:4610\/backoffice\/setup#token=setup_/);
    expect((await t.app.inject({ method: 'GET', url: '/api/backoffice/v1/setup' })).json()).toEqual({ open: true, set_up: false });
    const body = { username: 'ama.admin', full_name: 'Ama Owusu', password: 'first admin pass 2026' };

    expect((await setup({ ...body, token: 'setup_wrong' })).statusCode).toBe(401);
    expect((await setup({ ...body })).statusCode).toBe(400);
    // An expired link: 31 minutes later a fresh one is needed.
    t.clock.advanceSeconds(31 * 60);
    expect((await t.app.inject({ method: 'GET', url: '/api/backoffice/v1/setup' })).json()).toEqual({ open: false, set_up: false });
    expect((await setup({ ...body, token: tokenOf(link!) })).statusCode).toBe(401);
    const fresh = await t.app.firstRun.open('http://127.0.0.1:4610');
    const weak = await setup({ ...body, password: 'short', token: tokenOf(fresh!) });
    expect(weak.statusCode).toBe(400); // a refused password does not use the link up
    const made = await setup({ ...body, token: tokenOf(fresh!) });
    expect(made.statusCode, made.body).toBe(201);
    expect(made.json()).toMatchObject({ username: 'ama.admin', role: 'admin' });
    expect((await setup({ ...body, username: 'second.admin', token: tokenOf(fresh!) })).statusCode).toBe(401); // once

    const login = await t.app.inject({ method: 'POST', url: '/api/backoffice/v1/auth/login', payload: { username: 'ama.admin', password: body.password } });
    expect(login.statusCode).toBe(200);
    expect(login.json().user.role).toBe('admin');
    // With a staff account there is no link any more.
    expect(await t.app.firstRun.open('http://127.0.0.1:4610')).toBeNull();
    expect((await t.app.inject({ method: 'GET', url: '/api/backoffice/v1/setup' })).json()).toEqual({ open: false, set_up: true });
  });
});
