import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../support/app';
import { envelope, post } from '../support/http';
import type { CreatedIntegration } from '../../server/modules/integrations/integrations.service';

const SESSIONS = '/api/v1/sessions';
const INVOICE = '/api/v1/invoice-lines';

describe('Idempotency-Key on session and invoice-line writes', () => {
  let t: TestContext;
  let m: CreatedIntegration;
  beforeAll(async () => {
    t = await createTestApp();
    m = await t.merchant('Idempotent Merchant');
    await post(t.app, '/api/v1/revenue-lines', { lines: [{ code: 'WATER', name: 'Water' }, { code: 'POWER', name: 'Power' }] }, { key: m.api_key });
  });
  afterAll(async () => t.close());

  const withKey = (url: string, body: unknown, key: string, apiKey = m.api_key, encoding: 'json' | 'urlencoded' | 'multipart' = 'json') =>
    post(t.app, url, body, { key: apiKey, encoding, headers: { 'idempotency-key': key } });
  const sessionCount = async (invoiceRef: string) =>
    Number((await t.database.db.selectFrom('checkout_sessions').select((eb) => eb.fn.countAll().as('n')).where('invoice_ref', '=', invoiceRef).executeTakeFirstOrThrow()).n);

  it('replays a session create: same status, identical body, no second session', async () => {
    const body = { amount_minor: 700, invoice_ref: 'INV-IDEM-1', metadata: { a: 1 } };
    const first = await withKey(SESSIONS, body, 'key-session-1');
    expect(first.statusCode).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    t.clock.advanceSeconds(3600);
    const again = await withKey(SESSIONS, body, 'key-session-1');
    expect(again.statusCode).toBe(201);
    expect(again.body).toBe(first.body);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(await sessionCount('INV-IDEM-1')).toBe(1);
  });

  it('treats the same fields in another encoding or key order as the same request', async () => {
    const body = { amount_minor: 710, invoice_ref: 'INV-IDEM-ENC', customer: { name: 'Ama', email: 'ama@example.com' } };
    const first = await withKey(SESSIONS, body, 'key-enc');
    const reordered = await withKey(SESSIONS, { customer: { email: 'ama@example.com', name: 'Ama' }, invoice_ref: 'INV-IDEM-ENC', amount_minor: 710 }, 'key-enc');
    const form = await withKey(SESSIONS, body, 'key-enc', m.api_key, 'urlencoded');
    for (const r of [reordered, form]) {
      expect(r.statusCode).toBe(201);
      expect(r.body).toBe(first.body);
    }
    expect(await sessionCount('INV-IDEM-ENC')).toBe(1);
  });

  it('refuses the same key with a different body: 422 IDEMPOTENCY_KEY_REUSED, nothing written', async () => {
    await withKey(SESSIONS, { amount_minor: 800, invoice_ref: 'INV-IDEM-2' }, 'key-session-2');
    const other = await withKey(SESSIONS, { amount_minor: 801, invoice_ref: 'INV-IDEM-2' }, 'key-session-2');
    expect(other.statusCode).toBe(422);
    expect(envelope(other).code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(await sessionCount('INV-IDEM-2')).toBe(1);
    // The same key on another endpoint is another request too.
    const elsewhere = await withKey(INVOICE, { invoice_ref: 'INV-IDEM-2', lines: [{ code: 'WATER', amount_minor: 800 }] }, 'key-session-2');
    expect(elsewhere.statusCode).toBe(422);
    expect(envelope(elsewhere).code).toBe('IDEMPOTENCY_KEY_REUSED');
  });

  it('replays an invoice-line ingest, including a 207 partial result, without re-applying it', async () => {
    const body = { invoice_ref: 'INV-IDEM-3', lines: [{ code: 'WATER', amount_minor: 100 }, { code: 'NOPE', amount_minor: 1 }] };
    const first = await withKey(INVOICE, body, 'key-lines-1');
    expect(first.statusCode).toBe(207);
    // The invoice changes in between (another key): a replay still answers the original result.
    await withKey(INVOICE, { invoice_ref: 'INV-IDEM-3', lines: [{ code: 'WATER', amount_minor: 150 }] }, 'key-lines-2');
    const again = await withKey(INVOICE, body, 'key-lines-1');
    expect(again.statusCode).toBe(207);
    expect(again.body).toBe(first.body);
    const listed = await t.app.inject({ method: 'GET', url: `${INVOICE}?invoice_ref=INV-IDEM-3`, headers: { authorization: `Bearer ${m.api_key}` } });
    expect(listed.json().lines).toEqual([expect.objectContaining({ code: 'WATER', amount_minor: 150 })]);
    const reused = await withKey(INVOICE, { ...body, invoice_ref: 'INV-IDEM-3b' }, 'key-lines-1');
    expect(reused.statusCode).toBe(422);
  });

  it('does not keep a key whose request failed, so the client can fix it and retry', async () => {
    const bad = await withKey(SESSIONS, { amount_minor: 0, invoice_ref: 'INV-IDEM-4' }, 'key-fix-me');
    expect(bad.statusCode).toBe(400);
    const good = await withKey(SESSIONS, { amount_minor: 5, invoice_ref: 'INV-IDEM-4' }, 'key-fix-me');
    expect(good.statusCode).toBe(201);
    // A refused write (409) does not keep the key either.
    await withKey(INVOICE, { invoice_ref: 'INV-IDEM-5', currency: 'USD', lines: [{ code: 'WATER', amount_minor: 5 }] }, 'lines-usd');
    const mismatch = await withKey(SESSIONS, { amount_minor: 5, invoice_ref: 'INV-IDEM-5' }, 'key-409');
    expect(mismatch.statusCode).toBe(409);
    const fixed = await withKey(SESSIONS, { amount_minor: 5, invoice_ref: 'INV-IDEM-5', currency: 'USD' }, 'key-409');
    expect(fixed.statusCode).toBe(201);
  });

  it('replays a completed create even when the invoice is since billed in another currency, and a mismatch writes no session', async () => {
    const body = { amount_minor: 900, invoice_ref: 'INV-IDEM-LATER-USD' };
    const first = await withKey(SESSIONS, body, 'key-before-lines');
    expect(first.statusCode).toBe(201);
    // Lines in USD arrive after a GHS session: a new GHS session is refused, the retry still replays.
    await withKey(INVOICE, { invoice_ref: 'INV-IDEM-LATER-USD', currency: 'USD', lines: [{ code: 'WATER', amount_minor: 900 }] }, 'lines-later-usd');
    const refused = await withKey(SESSIONS, body, 'key-after-lines');
    expect(refused.statusCode).toBe(409);
    expect(envelope(refused)).toMatchObject({ code: 'INVOICE_CURRENCY_MISMATCH' });
    expect(envelope(refused).message).toContain('USD');
    const again = await withKey(SESSIONS, body, 'key-before-lines');
    expect(again.statusCode).toBe(201);
    expect(again.body).toBe(first.body);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(await sessionCount('INV-IDEM-LATER-USD')).toBe(1);
    const history = await t.database.db.selectFrom('session_history').select('session_id').where('session_id', '=', first.json().id).execute();
    expect(history).toHaveLength(1);
    expect(await t.database.db.selectFrom('idempotency_keys').select('key').where('key', '=', 'key-after-lines').execute()).toEqual([]);
  });

  it('rejects an unusable key with 400 naming the header', async () => {
    for (const key of ['', 'x'.repeat(256), 'has space', 'ключ']) {
      const res = await withKey(SESSIONS, { amount_minor: 5, invoice_ref: 'INV-IDEM-6' }, key);
      expect(res.statusCode, JSON.stringify(key)).toBe(400);
      expect(envelope(res).message).toMatch(/^Idempotency-Key: /);
    }
    expect((await withKey(SESSIONS, { amount_minor: 5, invoice_ref: 'INV-IDEM-6' }, 'x'.repeat(255))).statusCode).toBe(201);
  });

  it('scopes keys per integration: the same key on two integrations makes two sessions', async () => {
    const sibling = await t.merchant('Idempotent Merchant'); // same merchant, second integration
    const stranger = await t.merchant('Other Merchant');
    const body = { amount_minor: 900, invoice_ref: 'INV-IDEM-SCOPE' };
    const one = await withKey(SESSIONS, body, 'shared-key');
    const two = await withKey(SESSIONS, body, 'shared-key', sibling.api_key);
    const three = await withKey(SESSIONS, { amount_minor: 1, invoice_ref: 'INV-IDEM-SCOPE' }, 'shared-key', stranger.api_key);
    expect([one.statusCode, two.statusCode, three.statusCode]).toEqual([201, 201, 201]);
    expect(new Set([one.json().id, two.json().id, three.json().id]).size).toBe(3);
    expect(two.headers['idempotent-replayed']).toBeUndefined();
  });

  it('forgets a key after 24 hours: the same key then creates a new session', async () => {
    const body = { amount_minor: 1000, invoice_ref: 'INV-IDEM-TTL' };
    const first = await withKey(SESSIONS, body, 'key-ttl');
    t.clock.advanceSeconds(86_400 - 1);
    const within = await withKey(SESSIONS, body, 'key-ttl');
    expect(within.body).toBe(first.body);
    t.clock.advanceSeconds(1);
    const after = await withKey(SESSIONS, body, 'key-ttl');
    expect(after.statusCode).toBe(201);
    expect(after.json().id).not.toBe(first.json().id);
    expect(await sessionCount('INV-IDEM-TTL')).toBe(2);
    // And a different body is no longer "reuse" once the first is forgotten.
    t.clock.advanceSeconds(86_400);
    expect((await withKey(SESSIONS, { ...body, amount_minor: 1001 }, 'key-ttl')).statusCode).toBe(201);
  });

  it('answers 409 IDEMPOTENCY_KEY_IN_FLIGHT while the first request holds the key, and takes over a key left by a request that died', async () => {
    // The state a request still running (or killed mid-way) leaves behind: the key reserved, no response yet.
    const body = { amount_minor: 1200, invoice_ref: 'INV-IDEM-INFLIGHT' };
    const first = await withKey(SESSIONS, body, 'key-inflight');
    const row = await t.database.db.selectFrom('idempotency_keys').selectAll().where('key', '=', 'key-inflight').executeTakeFirstOrThrow();
    await t.database.db
      .updateTable('idempotency_keys')
      .set({ state: 'in_flight', response_status: null, response_body: null, created_at: t.clock.now().toISOString() })
      .where('key', '=', 'key-inflight')
      .execute();
    // A request that died wrote neither the session nor its first history row.
    await t.database.db.deleteFrom('session_history').where('session_id', '=', first.json().id).execute();
    await t.database.db.deleteFrom('checkout_sessions').where('id', '=', first.json().id).execute();

    const busy = await withKey(SESSIONS, body, 'key-inflight');
    expect(busy.statusCode).toBe(409);
    expect(envelope(busy)).toMatchObject({ code: 'IDEMPOTENCY_KEY_IN_FLIGHT', retry_after_seconds: 1 });
    expect(busy.headers['retry-after']).toBe('1');
    // A different body is still reuse, in flight or not.
    expect((await withKey(SESSIONS, { ...body, amount_minor: 1 }, 'key-inflight')).statusCode).toBe(422);
    expect(await sessionCount('INV-IDEM-INFLIGHT')).toBe(0);

    // 60 s later the first request is taken to have died: the retry runs the write once.
    t.clock.advanceSeconds(60);
    const retry = await withKey(SESSIONS, body, 'key-inflight');
    expect(retry.statusCode).toBe(201);
    expect(await sessionCount('INV-IDEM-INFLIGHT')).toBe(1);
    expect((await withKey(SESSIONS, body, 'key-inflight')).body).toBe(retry.body);
    expect(row.integration_id).toBe(m.integration_id);
  });

  it('writes without a key are not deduplicated', async () => {
    const body = { amount_minor: 1100, invoice_ref: 'INV-IDEM-NOKEY' };
    await post(t.app, SESSIONS, body, { key: m.api_key });
    await post(t.app, SESSIONS, body, { key: m.api_key });
    expect(await sessionCount('INV-IDEM-NOKEY')).toBe(2);
  });
});

describe('Idempotency-Key under real concurrency (real port)', () => {
  let t: TestContext;
  let m: CreatedIntegration;
  let base: string;
  beforeAll(async () => {
    t = await createTestApp();
    m = await t.merchant('Concurrent Merchant');
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => t.close());

  const fire = (url: string, body: unknown, key: string) =>
    fetch(`${base}${url}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${m.api_key}`, 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(20_000),
    }).then(async (r) => ({ status: r.status, text: await r.text(), retryAfter: r.headers.get('retry-after') }));

  // One server process runs each request's database work without interleaving, so a parallel
  // retry usually arrives after the first finished and gets its replay; any that overlap get
  // 409 IN_FLIGHT. Either way: exactly one write and one body.
  it('30 parallel session creates with one key: one session, identical 201 bodies, any others 409 IN_FLIGHT', async () => {
    const body = { amount_minor: 4500, invoice_ref: 'INV-RACE', description: 'raced' };
    const results = await Promise.all(Array.from({ length: 30 }, () => fire(SESSIONS, body, 'race-key-1')));
    const created = results.filter((r) => r.status === 201);
    const inFlight = results.filter((r) => r.status === 409);
    expect(created.length + inFlight.length).toBe(30);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((r) => r.text)).size).toBe(1);
    for (const r of inFlight) {
      expect(JSON.parse(r.text).error.code).toBe('IDEMPOTENCY_KEY_IN_FLIGHT');
      expect(r.retryAfter).toMatch(/^\d+$/);
    }
    const rows = await t.database.db.selectFrom('checkout_sessions').select('id').where('invoice_ref', '=', 'INV-RACE').execute();
    expect(rows).toHaveLength(1);
    expect(JSON.parse(created[0]!.text).id).toBe(rows[0]!.id);

    // Once it finished, a retry replays it.
    const retry = await fire(SESSIONS, body, 'race-key-1');
    expect(retry.status).toBe(201);
    expect(retry.text).toBe(created[0]!.text);
  });

  it('30 parallel invoice-line ingests with one key apply the lines once', async () => {
    await fire('/api/v1/revenue-lines', { lines: [{ code: 'WATER', name: 'Water' }] }, 'unused-sync-key');
    const body = { invoice_ref: 'INV-RACE-LINES', lines: [{ code: 'WATER', amount_minor: 300 }] };
    const results = await Promise.all(Array.from({ length: 30 }, () => fire(INVOICE, body, 'race-key-2')));
    const ok = results.filter((r) => r.status === 200);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    expect(new Set(ok.map((r) => r.text)).size).toBe(1);
    for (const r of results.filter((x) => x.status !== 200)) {
      expect(r.status).toBe(409);
      expect(JSON.parse(r.text).error.code).toBe('IDEMPOTENCY_KEY_IN_FLIGHT');
    }
    const stored = await t.database.db.selectFrom('idempotency_keys').select(['state', 'response_status']).where('key', '=', 'race-key-2').execute();
    expect(stored).toEqual([{ state: 'completed', response_status: 200 }]);
  });

  it('30 parallel creates with 30 different keys make 30 sessions', async () => {
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => fire(SESSIONS, { amount_minor: 10, invoice_ref: 'INV-MANY' }, `many-${i}`)));
    expect(results.map((r) => r.status)).toEqual(Array(30).fill(201));
    const many = await t.database.db.selectFrom('checkout_sessions').select((eb) => eb.fn.countAll().as('n')).where('invoice_ref', '=', 'INV-MANY').executeTakeFirstOrThrow();
    expect(Number(many.n)).toBe(30);
  });
});
