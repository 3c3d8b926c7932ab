import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomIds } from '../../server/lib/ids';
import { hashPassword } from '../../server/lib/password';
import { LOGIN_MAX_FAILURES, LOGIN_MAX_FAILURES_PER_ADDRESS } from '../../server/modules/auth/staff-auth';
import { createStaff } from '../../server/modules/auth/staff.service';
import { createTestApp, type TestContext } from '../support/app';
import { BO, PASSWORD } from '../support/backoffice';

// Password guessing, scrypt cost, audit of unknown names.
let t: TestContext;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

const login = (username: string, password: string, remoteAddress = '10.1.1.1') =>
  t.app.inject({ method: 'POST', url: `${BO}/auth/login`, payload: { username, password }, remoteAddress });

describe('sign-in throttling holds under concurrency', () => {
  it('100 wrong guesses and the right password sent at once: at most 5 reach the password check, the rest get 429, the right one does not get in', async () => {
    const user = await createStaff(t.database.db, t.clock, randomIds, { username: 'concurrent.target', password: PASSWORD, role: 'teller' });
    const wrong = Array.from({ length: 100 }, (_, i) => login('concurrent.target', `wrong guess ${i}`, '10.2.2.2'));
    const right = login('concurrent.target', PASSWORD, '10.2.2.2');
    const results = await Promise.all([...wrong, right]);
    const codes = results.map((r) => r.statusCode);
    const evaluated = codes.filter((c) => c === 401).length;
    expect(evaluated).toBeLessThanOrEqual(LOGIN_MAX_FAILURES);
    expect(codes.filter((c) => c === 429).length).toBeGreaterThanOrEqual(101 - LOGIN_MAX_FAILURES);
    expect(codes.at(-1)).toBe(429);
    expect(codes).not.toContain(200);
    // Every guess that was checked is on the audit trail; the refused ones never ran scrypt.
    const audited = await t.database.db.selectFrom('audit_log').select('id').where('action', '=', 'auth.login_failed').where('target_id', '=', user.id).execute();
    expect(audited.length).toBe(evaluated);
    expect((await t.database.db.selectFrom('staff_sessions').select('id').where('staff_id', '=', user.id).execute()).length).toBe(0);
  });

  it('throttles per address too: past the address budget, a name that already failed from there gets no second guess', async () => {
    const ip = '10.3.3.3';
    const guesses = await Promise.all(Array.from({ length: LOGIN_MAX_FAILURES_PER_ADDRESS + 10 }, (_, i) => login(`sprayed${i}`, 'Summer2025!', ip)));
    // A first guess per name is never refused by the address budget (a made-up name must not lock out a real one)...
    expect(guesses.every((r) => r.statusCode === 401)).toBe(true);
    // ...but a second guess at any of them is.
    expect((await login('sprayed3', 'Winter2025!', ip)).statusCode).toBe(429);
    await createStaff(t.database.db, t.clock, randomIds, { username: 'sprayed.real', password: PASSWORD, role: 'teller' });
    expect((await login('sprayed.real', PASSWORD, ip)).statusCode).toBe(200);
  });

  it('guesses older than the window are pruned, so the throttle table stays small', async () => {
    expect((await login('pruned.name', 'wrong', '10.8.8.1')).statusCode).toBe(401);
    t.clock.advanceSeconds(15 * 60 + 1);
    expect((await login('pruned.name', 'wrong', '10.8.8.2')).statusCode).toBe(401);
    const rows = await t.database.db.selectFrom('staff_login_failures').select('throttle_key').execute();
    expect(rows.map((r) => r.throttle_key).sort()).toEqual(['ip:10.8.8.2', expect.stringMatching(/^user:[A-Za-z0-9_-]{43}\|10\.8\.8\.2$/)]);
  });
});

describe('the audit trail never holds a password typed as a username', () => {
  it('an unknown username is recorded as "(unknown user)", not verbatim', async () => {
    const typed = 'Kw4me-Secret-Phrase-77';
    expect((await login(typed, 'whatever', '10.5.5.5')).statusCode).toBe(401);
    const raw = JSON.stringify(await t.database.db.selectFrom('audit_log').selectAll().execute());
    expect(raw).not.toContain(typed);
    expect(raw.toLowerCase()).not.toContain(typed.toLowerCase());
    const entry = await t.database.db.selectFrom('audit_log').selectAll().where('ip', '=', '10.5.5.5').executeTakeFirstOrThrow();
    expect(entry).toMatchObject({ action: 'auth.login_failed', actor_username: '(unknown user)' });
    const failures = JSON.stringify(await t.database.db.selectFrom('staff_login_failures').selectAll().execute());
    // The throttle keys hold a keyed hash of the name, never the name.
    expect(failures).not.toContain(typed);
    expect(failures.toLowerCase()).not.toContain(typed.toLowerCase());
  });
});

describe('scrypt cost', () => {
  it('a hash of an older, cheaper cost is replaced at the next successful sign-in, and still signs in', async () => {
    const user = await createStaff(t.database.db, t.clock, randomIds, { username: 'old.cost', password: PASSWORD, role: 'teller' });
    await t.database.db.updateTable('staff_users').set({ password_hash: await hashPassword(PASSWORD, 2 ** 10) }).where('id', '=', user.id).execute();
    expect((await login('old.cost', 'not the password', '10.6.6.6')).statusCode).toBe(401);
    const stillOld = await t.database.db.selectFrom('staff_users').select('password_hash').where('id', '=', user.id).executeTakeFirstOrThrow();
    expect(stillOld.password_hash.split('$')[1]).toBe('1024');
    expect((await login('old.cost', PASSWORD, '10.6.6.6')).statusCode).toBe(200);
    const row = await t.database.db.selectFrom('staff_users').select('password_hash').where('id', '=', user.id).executeTakeFirstOrThrow();
    // The suite runs at the documented lower test cost (vitest.config.ts); production is 2^17 (test/unit/password.test.ts).
    expect(Number(row.password_hash.split('$')[1])).toBe(2 ** Number(process.env.PAYDESK_TEST_SCRYPT_LOG2N ?? 17));
    expect((await login('old.cost', PASSWORD, '10.6.6.6')).statusCode).toBe(200);
  });
});
