import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../support/app';
import { call, staff } from '../support/backoffice';

// Idle sign-out is enforced by the server: the page's 30-minute timer is only a convenience.
describe('a staff sign-in unused for the idle timeout is refused by the server', () => {
  let t: TestContext;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t.close());
  const lastSeen = async (id: string) => (await t.database.db.selectFrom('staff_sessions').select('last_seen_at').where('staff_id', '=', id).executeTakeFirstOrThrow()).last_seen_at;

  it('slides with use (written at most once a minute) and answers 401 after 30 minutes without a call', async () => {
    const teller = await staff(t, 'teller');
    const signedIn = await lastSeen(teller.id);
    t.clock.advanceSeconds(30);
    expect((await call(t, teller, 'GET', '/me')).statusCode).toBe(200);
    expect(await lastSeen(teller.id)).toBe(signedIn); // within the minute: no write
    t.clock.advanceSeconds(29 * 60);
    expect((await call(t, teller, 'GET', '/me')).statusCode).toBe(200);
    const moved = await lastSeen(teller.id);
    expect(moved > signedIn).toBe(true);
    // 29 minutes later: still within the idle timeout of the last call, past it of the sign-in.
    t.clock.advanceSeconds(29 * 60);
    expect((await call(t, teller, 'GET', '/deposits')).statusCode).toBe(200);
    // 30 min 48 s without a call: every route answers 401.
    t.clock.advanceSeconds(30 * 60 + 48);
    expect((await call(t, teller, 'GET', '/me')).statusCode).toBe(401);
    expect((await call(t, teller, 'GET', '/deposits')).statusCode).toBe(401);
  });
});

describe('STAFF_IDLE_TIMEOUT_S sets the idle timeout', () => {
  let t: TestContext;
  beforeAll(async () => {
    t = await createTestApp({ env: { STAFF_IDLE_TIMEOUT_S: '120' } });
  });
  afterAll(async () => t.close());

  it('two minutes', async () => {
    const admin = await staff(t, 'admin');
    t.clock.advanceSeconds(119);
    expect((await call(t, admin, 'GET', '/me')).statusCode).toBe(200);
    t.clock.advanceSeconds(121);
    expect((await call(t, admin, 'GET', '/me')).statusCode).toBe(401);
  });
});
