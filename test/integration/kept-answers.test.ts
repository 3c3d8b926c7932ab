import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgres } from '../../server/db/postgres';
import { sweep } from '../../server/jobs/sweeper';
import { randomIds } from '../../server/lib/ids';
import { MOMO_PROMPT_TTL_SECONDS } from '../../server/providers/sandbox-momo';
import { createKeptAnswerMemory, keepAnswer } from '../../server/http/kept-answers';
import { roundTrips } from '../../server/db/round-trips';
import { sessionRowVersion } from '../../server/db/row-versions';
import type { CreatedIntegration } from '../../server/modules/integrations/integrations.service';
import { createTestApp, type TestContext } from '../support/app';
import { runAdmin } from '../support/cli';
import { expectError, openSession, payByCard, quoteTotal, sessionUrl, startAttempt, startMomo } from '../support/checkout';
import { databaseUrls } from '../support/database';
import { get } from '../support/http';

// On SQLite the merchant's session lookup answers from a per-process copy while nothing may have
// changed the session (server/http/kept-answers.ts): every change must still show
// on the very next GET, whoever made it: this process's API, another process (the operator CLI),
// the sweeper, or the clock. On PostgreSQL the lookup is kept by the row's version, asked on every
// GET (server/db/row-versions.ts), since other instances write unseen; the same tests hold there.
describe('GET /api/v1/sessions/:id after the session changes', { timeout: 60_000 }, () => {
  let t: TestContext;
  let m: CreatedIntegration;
  beforeAll(async () => {
    t = await createTestApp();
    m = await t.merchant('Answer Cache Merchant');
  });
  afterAll(async () => t.close());

  const lookup = async (id: string, key = m.api_key) => {
    const res = await get(t.app, `/api/v1/sessions/${id}`, key);
    expect(res.statusCode, res.body).toBe(200);
    return res;
  };
  const statusOf = async (id: string) => (await lookup(id)).json().status as string;

  it('answers the same bytes and headers again while the session is unchanged', async () => {
    const s = await openSession(t, m, { metadata: { order: 'A-1', note: 'é "quoted"' }, customer: { name: 'Ama', email: 'ama@example.com' } });
    const first = await lookup(s.id);
    const again = await lookup(s.id);
    expect(again.body).toBe(first.body);
    expect(again.headers['content-type']).toBe(first.headers['content-type']);
    expect(again.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(again.headers['x-content-type-options']).toBe('nosniff');
    expect(again.json()).toMatchObject({ id: s.id, status: 'open', metadata: { order: 'A-1', note: 'é "quoted"' }, customer: { name: 'Ama', email: 'ama@example.com' } });
  });

  it('shows a payment made through the API on the next GET', async () => {
    const s = await openSession(t, m);
    expect(await statusOf(s.id)).toBe('open');
    expect(await statusOf(s.id)).toBe('open');
    const paid = await payByCard(t, s.id, '4242424242424242');
    expect(paid.statusCode, paid.body).toBe(201);
    expect(await statusOf(s.id)).toBe('success');
  });

  it('shows a transfer the operator CLI confirmed (another process) on the next GET', async () => {
    const s = await openSession(t, m, { amount_minor: 40_000 });
    const started = await startAttempt(t, s.id, { rail: 'bank_transfer', amount_minor: await quoteTotal(t, s.id, 'bank_transfer') });
    expect(started.statusCode, started.body).toBe(201);
    const attempt = started.json() as { amount_charged_minor: number; instructions: { payment_reference: string } };
    expect(await statusOf(s.id)).toBe('pending');
    expect(await statusOf(s.id)).toBe('pending');
    const cli = await runAdmin(t.dataDir, ['sandbox:bank-transfer', '--reference', attempt.instructions.payment_reference, '--amount', String(attempt.amount_charged_minor), '--json']);
    expect(cli.code, cli.stderr).toBe(0);
    expect(await statusOf(s.id)).toBe('success');
  });

  it('shows what the sweeper changed on the next GET (a Mobile Money prompt that ran out puts the session back to open)', async () => {
    const s = await openSession(t, m);
    await startMomo(t, s.id);
    expect(await statusOf(s.id)).toBe('pending');
    t.clock.advanceSeconds(MOMO_PROMPT_TTL_SECONDS + 1);
    // The clock alone does not change a pending session: still the same answer.
    expect(await statusOf(s.id)).toBe('pending');
    const swept = await sweep(t.database.db, { clock: t.clock, ids: randomIds, outbox: t.outbox });
    expect(swept.expiredAttempts).toBeGreaterThanOrEqual(1);
    expect(await statusOf(s.id)).toBe('open');
  });

  it('expires an open session by the clock on the first GET past expires_at, without a sweep', async () => {
    const fresh = await t.merchant('Answer Cache Clock');
    const s = await openSession(t, fresh, { expires_in_seconds: 100 });
    const statusFor = async () => (await lookup(s.id, fresh.api_key)).json().status as string;
    // The key's "last used" is written at most once a minute, and that write drops every kept
    // answer: written here (61 s after the create), it is not due again at expires_at, so only
    // the clock can tell the lookup at expires_at that the session expired.
    t.clock.advanceSeconds(61);
    expect(await statusFor()).toBe('open');
    expect(await statusFor()).toBe('open');
    t.clock.advanceSeconds(38);
    expect(await statusFor()).toBe('open');
    t.clock.advanceSeconds(1);
    expect(await statusFor()).toBe('expired');
  });

  it('shows a change another instance wrote straight into the row on the next GET, whatever its updated_at', async () => {
    const s = await openSession(t, m, { description: 'Before' });
    expect((await lookup(s.id)).json().description).toBe('Before');
    expect((await lookup(s.id)).json().description).toBe('Before');
    // Another instance (PostgreSQL: another pool on the same database; SQLite: another handle on the file).
    const url = databaseUrls.get(t.dataDir);
    const other = url ? openPostgres(url, { poolSize: 1 }).db : undefined;
    try {
      const writer = other ?? t.database.db;
      await sql`update checkout_sessions set description = 'After' where id = ${s.id}`.execute(writer);
      expect((await lookup(s.id)).json().description).toBe('After');
      await sql`update checkout_sessions set description = 'Again' where id = ${s.id}`.execute(writer);
      expect((await lookup(s.id)).json().description).toBe('Again');
    } finally {
      await other?.destroy();
    }
  });

  it('answers lookups that arrive together each with its own session as it is now, and no other merchant', async () => {
    const [a, b, c] = [await openSession(t, m, { description: 'A' }), await openSession(t, m, { description: 'B' }), await openSession(t, m, { description: 'C' })];
    for (const s of [a, b, c]) await lookup(s.id);
    const other = await t.merchant('Answer Cache Together');
    const url = databaseUrls.get(t.dataDir);
    const instance = url ? openPostgres(url, { poolSize: 1 }).db : undefined;
    try {
      await sql`update checkout_sessions set description = 'B changed' where id = ${b.id}`.execute(instance ?? t.database.db);
      // All at once: on PostgreSQL their version asks share one statement (server/db/row-versions.ts).
      const answers = await Promise.all([a, b, c, b, a].map((s) => get(t.app, `/api/v1/sessions/${s.id}`, m.api_key)));
      expect(answers.map((r) => r.statusCode)).toEqual([200, 200, 200, 200, 200]);
      expect(answers.map((r) => r.json().description)).toEqual(['A', 'B changed', 'C', 'B changed', 'A']);
      if (instance) {
        const statements = roundTrips.statements;
        const versions = await Promise.all([a.id, b.id, 'cs_test_missing', b.id].map((id) => sessionRowVersion(t.database.db, m.merchant_id, id)));
        const theirs = await Promise.all([sessionRowVersion(t.database.db, other.merchant_id, a.id), sessionRowVersion(t.database.db, m.merchant_id, c.id)]);
        expect(roundTrips.statements - statements, 'one statement per batch of asks').toBe(2);
        expect(versions[0]).toMatch(/^\d+ /);
        expect(versions[1]).not.toBe(versions[0]);
        expect(versions.slice(2)).toEqual([undefined, versions[1]]);
        expect(theirs[0]).toBeUndefined();
        expect(theirs[1]).toMatch(/^\d+ /);
      }
      // Another merchant's key, beside the owner's: refused, while the owner's is answered.
      const mixed = await Promise.all([get(t.app, `/api/v1/sessions/${a.id}`, other.api_key), get(t.app, `/api/v1/sessions/${a.id}`, m.api_key), get(t.app, `/api/v1/sessions/${c.id}`, other.api_key)]);
      expect(mixed.map((r) => r.statusCode)).toEqual([404, 200, 404]);
      expect(mixed[1]!.json().description).toBe('A');
    } finally {
      await instance?.destroy();
    }
  });

  it("never answers another merchant's key with a session another key looked up", async () => {
    const s = await openSession(t, m);
    await lookup(s.id);
    const other = await t.merchant('Answer Cache Other');
    const res = await get(t.app, `/api/v1/sessions/${s.id}`, other.api_key);
    expect(res.statusCode, res.body).toBe(404);
    expect(res.json().error.code).toBe('NOT_FOUND');
  });
});

// The payer's quote is kept the same way (fee rules and rails changed by this process or another
// connection: test/integration/quote-cache.test.ts).
describe('GET /api/v1/checkout/sessions/:id/quote after the session changes', () => {
  let t: TestContext;
  let m: CreatedIntegration;
  beforeAll(async () => {
    t = await createTestApp();
    m = await t.merchant('Quote Answer Merchant');
  });
  afterAll(async () => t.close());

  const quote = (id: string) => get(t.app, `${sessionUrl(id)}/quote`);

  it('answers the same bytes again, then refuses a session a payment started on (API), and quotes it again once the sweeper reopened it', async () => {
    const s = await openSession(t, m);
    const first = await quote(s.id);
    expect(first.statusCode, first.body).toBe(200);
    const again = await quote(s.id);
    expect(again.body).toBe(first.body);
    expect(again.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(again.headers['cache-control']).toBe('no-store');
    await startMomo(t, s.id);
    expectError(await quote(s.id), 409, 'SESSION_NOT_PAYABLE');
    t.clock.advanceSeconds(MOMO_PROMPT_TTL_SECONDS + 1);
    await sweep(t.database.db, { clock: t.clock, ids: randomIds, outbox: t.outbox });
    const reopened = await quote(s.id);
    expect(reopened.statusCode, reopened.body).toBe(200);
    expect(reopened.body).toBe(first.body);
  });

  it('refuses the quote of a session past expires_at by the clock alone', async () => {
    const s = await openSession(t, m, { expires_in_seconds: 60 });
    expect((await quote(s.id)).statusCode).toBe(200);
    t.clock.advanceSeconds(59);
    expect((await quote(s.id)).statusCode).toBe(200);
    t.clock.advanceSeconds(1);
    expect(expectError(await quote(s.id), 409, 'SESSION_NOT_PAYABLE').message).toMatch(/expired/);
  });
});

describe('the kept answers are bounded', () => {
  it('keeps at most 4,096 answers and ~2 M characters, dropping the oldest first', () => {
    const memory = createKeptAnswerMemory();
    const stamp = { dataVersion: 1, writes: 1 };
    const answer = (body: string) => ({ owner: 'm', baseUrl: 'http://x', status: 'success', expiresAt: '2026-01-01T00:00:00.000Z', body });
    for (let i = 0; i < 5000; i++) keepAnswer(memory, stamp, `cs_test_${i}`, answer('{}'));
    expect(memory.answers.size).toBe(4096);
    expect(memory.answers.has('cs_test_4999')).toBe(true);
    expect(memory.answers.has('cs_test_0')).toBe(false);
    const big = 'x'.repeat(30_000);
    for (let i = 0; i < 200; i++) keepAnswer(memory, stamp, `cs_big_${i}`, answer(big));
    expect(memory.chars).toBeLessThanOrEqual(2 * 1024 * 1024);
    expect(memory.chars).toBe([...memory.answers.values()].reduce((n, a) => n + a.body.length, 0));
    expect(memory.answers.has('cs_big_199')).toBe(true);
  });
});
