import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomIds } from '../../server/lib/ids';
import { LOGIN_MAX_FAILURES, LOGIN_MAX_FAILURES_PER_ADDRESS } from '../../server/modules/auth/staff-auth';
import { createStaff } from '../../server/modules/auth/staff.service';
import { createTestApp, type TestContext } from '../support/app';
import { BO, PASSWORD } from '../support/backoffice';

// Sign-in from hostile pages, one username normalisation on both engines, the throttle's stored names.
let t: TestContext;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

const HOST = 'paydesk.test';
const login = (username: string, password: string, remoteAddress: string, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'POST', url: `${BO}/auth/login`, payload: { username, password }, remoteAddress, headers: { host: HOST, ...headers } });
const failures = async () => (await t.database.db.selectFrom('staff_login_failures').select('throttle_key').execute()).map((r) => r.throttle_key);

describe('a cross-site page cannot spend sign-in guesses', () => {
  it('refuses form bodies (415) and a foreign Origin (403) before they count; the teller then signs in', async () => {
    await createStaff(t.database.db, t.clock, randomIds, { username: 'branch.teller', password: PASSWORD, role: 'teller' });
    const ip = '10.20.0.1';
    const before = (await failures()).length;
    const form = (i: number) =>
      t.app.inject({ method: 'POST', url: `${BO}/auth/login`, remoteAddress: ip, headers: { host: HOST, origin: 'http://evil.example', 'content-type': 'application/x-www-form-urlencoded' }, payload: `username=branch.teller&password=guess${i}` });
    const multipart = (i: number) =>
      t.app.inject({
        method: 'POST',
        url: `${BO}/auth/login`,
        remoteAddress: ip,
        headers: { host: HOST, origin: 'http://evil.example', 'content-type': 'multipart/form-data; boundary=x' },
        payload: `--x\r\nContent-Disposition: form-data; name="username"\r\n\r\nmadeup${i}\r\n--x\r\nContent-Disposition: form-data; name="password"\r\n\r\nguess\r\n--x--\r\n`,
      });
    const codes: number[] = [];
    for (let i = 0; i < LOGIN_MAX_FAILURES_PER_ADDRESS; i++) {
      codes.push((await form(i)).statusCode, (await multipart(i)).statusCode);
      codes.push((await login(i < 5 ? 'branch.teller' : `madeup${i}`, `guess${i}`, ip, { origin: 'http://evil.example' })).statusCode);
    }
    expect(new Set(codes)).toEqual(new Set([415, 403]));
    const refused = await login('branch.teller', 'guess', ip, { origin: 'http://evil.example' });
    expect(refused.json()).toMatchObject({ error: { code: 'FORBIDDEN' } });
    expect((await failures()).length).toBe(before);
    // The real teller, from the same address, signs in (the back office page sends its own origin).
    expect((await login('branch.teller', PASSWORD, ip, { origin: `http://${HOST}` })).statusCode).toBe(200);
  });

  it('failed guesses at made-up names from one address never lock out a username that has not failed', async () => {
    await createStaff(t.database.db, t.clock, randomIds, { username: 'shared.nat', password: PASSWORD, role: 'teller' });
    const ip = '10.21.0.1';
    for (let i = 0; i < LOGIN_MAX_FAILURES_PER_ADDRESS + 5; i++) expect((await login(`made.up${i}`, 'wrong', ip)).statusCode).toBe(401);
    expect((await login('shared.nat', PASSWORD, ip)).statusCode).toBe(200);
    // A name that has failed from this address gets no more guesses past the address budget.
    expect((await login('made.up1', 'wrong again', ip)).statusCode).toBe(429);
  });
});

describe('one username normalisation (NFKC, locale-independent case fold) for throttle, lookup and creation', () => {
  it('a dotted capital I is another name: no fresh budget against the account and no sign-in as it', async () => {
    await createStaff(t.database.db, t.clock, randomIds, { username: 'pfinA', password: PASSWORD, role: 'admin' });
    const ip = '10.22.0.1';
    for (let i = 0; i < LOGIN_MAX_FAILURES; i++) expect((await login('pfinA', `wrong ${i}`, ip)).statusCode).toBe(401);
    expect((await login('pfinA', PASSWORD, ip)).statusCode).toBe(429);
    // Full-width letters fold to the same name: the same (spent) budget.
    expect((await login('ｐｆｉｎＡ', PASSWORD, ip)).statusCode).toBe(429);
    expect((await login('PFINA', PASSWORD, ip)).statusCode).toBe(429);
    // `İ` folds to `i̇` (i and U+0307): no account has that name, on either engine.
    const dotted = await login('pfİnA', PASSWORD, '10.22.0.2');
    expect(dotted.statusCode).toBe(401);
    expect((await login('pfınA', PASSWORD, '10.22.0.2')).statusCode).toBe(401);
    // From another address the real name and its full-width form sign in as pfinA.
    const wide = await login('ｐｆｉｎＡ', PASSWORD, '10.22.0.3');
    expect(wide.statusCode).toBe(200);
    expect(wide.json()).toMatchObject({ user: { username: 'pfinA' } });
  });

  it('account creation stores the NFKC form and refuses a name that folds to a taken one', async () => {
    const made = await createStaff(t.database.db, t.clock, randomIds, { username: 'ｗｉｄｅ.ｕｓｅｒ', password: PASSWORD, role: 'teller' });
    expect(made.username).toBe('wide.user');
    await expect(createStaff(t.database.db, t.clock, randomIds, { username: 'WIDE.USER', password: PASSWORD, role: 'teller' })).rejects.toThrow(/already taken/);
    await expect(createStaff(t.database.db, t.clock, randomIds, { username: 'wİde.user', password: PASSWORD, role: 'teller' })).rejects.toThrow(/letters, digits/);
  });
});

describe('the throttle stores a keyed hash of the username, never the text', () => {
  it('a password typed as a username leaves no trace in staff_login_failures', async () => {
    const typed = 'mysecretpassw0rd!!';
    expect((await login(typed, 'x', '10.23.0.1')).statusCode).toBe(401);
    const rows = JSON.stringify(await t.database.db.selectFrom('staff_login_failures').selectAll().execute());
    expect(rows).not.toContain('mysecretpassw0rd');
    expect(rows).toMatch(/user:[A-Za-z0-9_-]{43}\|10\.23\.0\.1/);
  });
});
