import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../support/app';
import { ENCODINGS, envelope, get, post } from '../support/http';
import type { CreatedIntegration } from '../../server/modules/integrations/integrations.service';

const SESSIONS = '/api/v1/sessions';

describe('POST /api/v1/sessions and GET /api/v1/sessions/{reference}', () => {
  let t: TestContext;
  let m: CreatedIntegration;
  beforeAll(async () => {
    t = await createTestApp();
    m = await t.merchant('Sessions Merchant');
  });
  afterAll(async () => t.close());

  const create = (body: unknown, encoding: (typeof ENCODINGS)[number] = 'json') => post(t.app, SESSIONS, body, { key: m.api_key, encoding });

  it('creates an open session with defaults (GHS, 24 h lifetime) and the checkout_url under PUBLIC_BASE_URL', async () => {
    const res = await create({ amount_minor: 2500, invoice_ref: 'INV-1' });
    expect(res.statusCode).toBe(201);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const s = res.json();
    expect(s).toMatchObject({ object: 'checkout.session', status: 'open', amount_minor: 2500, currency: 'GHS', invoice_ref: 'INV-1', metadata: {} });
    expect(s.id).toMatch(/^cs_test_[A-Za-z0-9]{24}$/);
    expect(s.checkout_url).toBe(`http://paydesk.test/checkout/${s.id}`);
    expect(Date.parse(s.expires_at) - t.clock.now().getTime()).toBe(86_400_000);
    expect(s.created_at).toBe(t.clock.now().toISOString());
    expect(s).not.toHaveProperty('description');
  });

  it('gives later sessions ids that sort later (time from the clock, then 17 random characters), and history ids that are UUIDv7', async () => {
    const made: Array<{ id: string; created_at: string }> = [];
    for (const step of [0, 0, 0, 4, 1000, 86_400_000]) {
      t.clock.advance(step);
      const res = await create({ amount_minor: 700, invoice_ref: 'INV-ORDER' });
      expect(res.statusCode, res.body).toBe(201);
      made.push(res.json());
    }
    const ids = made.map((s) => s.id);
    for (const id of ids) expect(id).toMatch(/^cs_test_[A-Za-z0-9]{24}$/);
    expect(new Set(ids).size).toBe(ids.length);
    // Three in one instant share their time prefix and differ in the random part; each later instant sorts after.
    expect(new Set(ids.slice(0, 3).map((id) => id.slice(8, 15))).size).toBe(1);
    const later = ids.slice(2);
    expect([...later].sort()).toEqual(later);
    const history = await t.database.db.selectFrom('session_history').select(['id', 'session_id', 'at']).where('session_id', 'in', ids).execute();
    expect(history).toHaveLength(ids.length);
    for (const h of history) {
      expect(h.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(parseInt(h.id.slice(0, 8) + h.id.slice(9, 13), 16)).toBe(Date.parse(h.at));
    }
  });

  it('echoes every optional field it stores and the lookup returns the same session', async () => {
    const body = {
      amount_minor: 1,
      invoice_ref: 'INV-FULL',
      description: 'Water bill, May',
      currency: 'ghs',
      customer: { name: 'Ama Mensah', email: 'ama@example.com' },
      callback_url: 'https://shop.example.com/return?order=7',
      metadata: { order_id: 'A-7', attempt: 2, nested: { ok: true } },
      expires_in_seconds: 600,
    };
    const res = await create(body);
    expect(res.statusCode).toBe(201);
    const s = res.json();
    const { expires_in_seconds: _lifetime, ...echoed } = body;
    expect(s).toMatchObject({ ...echoed, currency: 'GHS' });
    expect(s).not.toHaveProperty('expires_in_seconds');
    expect(Date.parse(s.expires_at) - t.clock.now().getTime()).toBe(600_000);
    const got = await get(t.app, `${SESSIONS}/${s.id}`, m.api_key);
    expect(got.statusCode).toBe(200);
    expect(got.json()).toEqual(s);
  });

  it('looks up an unknown session as 404 NOT_FOUND', async () => {
    for (const ref of ['cs_test_doesnotexist', 'x'.repeat(300), 'a%20b', "'%20OR%201=1--"]) {
      const res = await get(t.app, `${SESSIONS}/${ref}`, m.api_key);
      expect(res.statusCode, ref).toBe(404);
      expect(envelope(res).code).toBe('NOT_FOUND');
    }
  });

  it('accepts the same session in JSON, urlencoded and multipart, with nested customer[...] and metadata[...]', async () => {
    const body = {
      amount_minor: 1250,
      invoice_ref: 'INV-ENC',
      currency: 'GHS',
      customer: { name: 'Kofi', email: 'kofi@example.com' },
      metadata: { order: 'X-1' },
      expires_in_seconds: 3600,
    };
    for (const encoding of ENCODINGS) {
      const res = await create(body, encoding);
      expect(res.statusCode, `${encoding}: ${res.body}`).toBe(201);
      expect(res.json()).toMatchObject({ amount_minor: 1250, invoice_ref: 'INV-ENC', customer: body.customer, metadata: body.metadata });
      expect(Date.parse(res.json().expires_at) - t.clock.now().getTime()).toBe(3_600_000);
    }
  });

  it('validates form-encoded fields with the same rules as JSON', async () => {
    for (const encoding of ['urlencoded', 'multipart'] as const) {
      const zero = await create({ amount_minor: '0', invoice_ref: 'INV-F' }, encoding);
      expect(zero.statusCode).toBe(400);
      expect(envelope(zero)).toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringMatching(/^amount_minor: /) });
      const text = await create({ amount_minor: '12abc', invoice_ref: 'INV-F' }, encoding);
      expect(text.statusCode).toBe(400);
      expect(envelope(text).message).toMatch(/^amount_minor: /);
      const email = await create({ amount_minor: '5', invoice_ref: 'INV-F', customer: { email: 'nope' } }, encoding);
      expect(email.statusCode).toBe(400);
      expect(envelope(email).message).toMatch(/^customer\.email: /);
    }
  });

  describe('Limits table, at and past each boundary', () => {
    const base = { amount_minor: 100, invoice_ref: 'INV-LIM' };
    const url = (n: number) => {
      const head = 'https://shop.example.com/r?x=';
      return head + 'a'.repeat(n - head.length);
    };
    const cases: Array<{ field: string; ok: Record<string, unknown>; bad: Record<string, unknown> }> = [
      { field: 'amount_minor', ok: { amount_minor: 1 }, bad: { amount_minor: 0 } },
      { field: 'amount_minor', ok: { amount_minor: 7 }, bad: { amount_minor: 1.5 } },
      { field: 'amount_minor', ok: { amount_minor: 7 }, bad: { amount_minor: -1 } },
      { field: 'invoice_ref', ok: { invoice_ref: 'R'.repeat(120) }, bad: { invoice_ref: 'R'.repeat(121) } },
      { field: 'description', ok: { description: 'd'.repeat(240) }, bad: { description: 'd'.repeat(241) } },
      { field: 'currency', ok: { currency: 'USD' }, bad: { currency: 'USDT' } },
      { field: 'currency', ok: { currency: 'usd' }, bad: { currency: 'U1' } },
      { field: 'customer.name', ok: { customer: { name: 'n'.repeat(200) } }, bad: { customer: { name: 'n'.repeat(201) } } },
      { field: 'customer.email', ok: { customer: { email: 'a.b+c@example.co' } }, bad: { customer: { email: 'a@' } } },
      { field: 'callback_url', ok: { callback_url: url(500) }, bad: { callback_url: url(501) } },
      { field: 'callback_url', ok: { callback_url: 'http://localhost:3000/back' }, bad: { callback_url: 'not a url' } },
      { field: 'callback_url', ok: { callback_url: 'https://x.example/' }, bad: { callback_url: 'javascript:alert(1)' } },
      { field: 'expires_in_seconds', ok: { expires_in_seconds: 60 }, bad: { expires_in_seconds: 59 } },
      { field: 'expires_in_seconds', ok: { expires_in_seconds: 86_400 }, bad: { expires_in_seconds: 86_401 } },
      { field: 'expires_in_seconds', ok: { expires_in_seconds: 61 }, bad: { expires_in_seconds: 60.5 } },
    ];
    for (const c of cases) {
      it(`${c.field}: ${JSON.stringify(c.ok).slice(0, 60)} passes, ${JSON.stringify(c.bad).slice(0, 60)} is 400 naming the field`, async () => {
        const ok = await create({ ...base, ...c.ok });
        expect(ok.statusCode, ok.body).toBe(201);
        const bad = await create({ ...base, ...c.bad });
        expect(bad.statusCode).toBe(400);
        const err = envelope(bad);
        expect(err.code).toBe('INVALID_ARGUMENT');
        expect(err.message.startsWith(`${c.field}: `), err.message).toBe(true);
      });
    }

    it('stores the values at the boundary exactly', async () => {
      const res = await create({ ...base, invoice_ref: 'R'.repeat(120), description: 'd'.repeat(240), customer: { name: 'n'.repeat(200) }, callback_url: url(500) });
      expect(res.statusCode).toBe(201);
      const s = res.json();
      expect(s.invoice_ref).toHaveLength(120);
      expect(s.description).toHaveLength(240);
      expect(s.customer.name).toHaveLength(200);
      expect(s.callback_url).toHaveLength(500);
    });

    it('names each missing required field', async () => {
      const noAmount = await create({ invoice_ref: 'INV-X' });
      expect(envelope(noAmount)).toEqual({ code: 'INVALID_ARGUMENT', message: 'amount_minor: is required' });
      const noRef = await create({ amount_minor: 5 });
      expect(envelope(noRef)).toEqual({ code: 'INVALID_ARGUMENT', message: 'invoice_ref: is required' });
      const stringAmount = await create({ amount_minor: '5', invoice_ref: 'INV-X' });
      expect(stringAmount.statusCode).toBe(400);
      expect(envelope(stringAmount).message).toMatch(/^amount_minor: /);
    });

    it('metadata: at most 50 keys, keys of at most 40 characters, at most 16 KiB of JSON', async () => {
      const keys = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]));
      expect((await create({ ...base, metadata: keys(50) })).statusCode).toBe(201);
      const tooMany = await create({ ...base, metadata: keys(51) });
      expect(tooMany.statusCode).toBe(400);
      expect(envelope(tooMany).message).toMatch(/^metadata: .*50 keys/);

      expect((await create({ ...base, metadata: { ['k'.repeat(40)]: 1 } })).statusCode).toBe(201);
      const longKey = await create({ ...base, metadata: { ['k'.repeat(41)]: 1 } });
      expect(longKey.statusCode).toBe(400);
      expect(envelope(longKey).message).toBe('metadata: keys must be 1 to 40 characters');

      // {"v":"…"} is 8 bytes of JSON around the value.
      expect((await create({ ...base, metadata: { v: 'x'.repeat(16_384 - 8) } })).statusCode).toBe(201);
      const big = await create({ ...base, metadata: { v: 'x'.repeat(16_384 - 7) } });
      expect(big.statusCode).toBe(400);
      expect(envelope(big).message).toMatch(/^metadata: .*16384 bytes/);
    });

    it('metadata must be an object', async () => {
      const res = await create({ ...base, metadata: ['a'] });
      expect(res.statusCode).toBe(400);
      expect(envelope(res).message).toBe('metadata: must be an object of key-value pairs');
    });
  });

  it('ignores unknown fields and never stores them', async () => {
    const marker = 'UNKNOWN-FIELD-MARKER-5b1f';
    const res = await create({ amount_minor: 300, invoice_ref: 'INV-UNK', secret_extra: marker, customer: { name: 'A', phone: marker } });
    expect(res.statusCode).toBe(201);
    const s = res.json();
    expect(JSON.stringify(s)).not.toContain(marker);
    expect(s.customer).toEqual({ name: 'A' });
    const rows = await t.database.db.selectFrom('checkout_sessions').selectAll().where('id', '=', s.id).execute();
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(marker);
  });

  it('refuses a session for an invoice billed in another currency (409 INVOICE_CURRENCY_MISMATCH)', async () => {
    await post(t.app, '/api/v1/revenue-lines', { lines: [{ code: 'WATER', name: 'Water' }] }, { key: m.api_key });
    const lines = await post(t.app, '/api/v1/invoice-lines', { invoice_ref: 'INV-CUR', currency: 'GHS', lines: [{ code: 'WATER', amount_minor: 500 }] }, { key: m.api_key });
    expect(lines.statusCode).toBe(200);
    const history = async () => (await t.database.db.selectFrom('session_history').select('id').execute()).length;
    const historyBefore = await history();
    // With a key: the refusal is not stored as its answer (the reservation goes with the rest), so a retry is refused again, not replayed.
    for (let i = 0; i < 2; i++) {
      const res = await post(t.app, SESSIONS, { amount_minor: 500, invoice_ref: 'INV-CUR', currency: 'USD' }, { key: m.api_key, headers: { 'idempotency-key': 'cur-mismatch-1' } });
      expect(res.statusCode).toBe(409);
      expect(res.headers['idempotent-replayed']).toBeUndefined();
      expect(envelope(res)).toMatchObject({ code: 'INVOICE_CURRENCY_MISMATCH', message: expect.stringMatching(/^currency: /) });
    }
    // Nothing of the refused session was written (on PostgreSQL it is written and read in one statement, then rolled back).
    expect(await t.database.db.selectFrom('checkout_sessions').select('id').where('invoice_ref', '=', 'INV-CUR').execute()).toEqual([]);
    expect(await t.database.db.selectFrom('invoice_summary_deltas').select('seq').where('invoice_ref', '=', 'INV-CUR').where('sessions', '>', 0).execute()).toEqual([]);
    expect(await history()).toBe(historyBefore);
    expect((await create({ amount_minor: 500, invoice_ref: 'INV-CUR', currency: 'GHS' })).statusCode).toBe(201);
  });

  it("the live invoice's lines do not decide a test session's currency: the check is of the key's own mode", async () => {
    // A live line of the same reference, in USD (no live key here: written as the live ingest would).
    const at = new Date().toISOString();
    await t.database.db
      .insertInto('invoice_lines')
      .values({ id: 'line-live-usd', merchant_id: m.merchant_id, mode: 'live', invoice_ref: 'INV-MODE', code: 'WATER', name: 'Water', amount_minor: 500, currency: 'USD', remitted: 0, remitted_at: null, created_at: at, updated_at: at })
      .execute();
    const res = await create({ amount_minor: 500, invoice_ref: 'INV-MODE', currency: 'GHS' });
    expect(res.statusCode).toBe(201);
    const id = res.json().id as string;
    expect(await t.database.db.selectFrom('checkout_sessions').select(['currency', 'status']).where('id', '=', id).executeTakeFirst()).toEqual({ currency: 'GHS', status: 'open' });
    expect(await t.database.db.selectFrom('session_history').select(['from_status', 'to_status']).where('session_id', '=', id).execute()).toEqual([{ from_status: 'none', to_status: 'open' }]);
    // A test line in USD for the same reference: now the test session in GHS is refused.
    await post(t.app, '/api/v1/revenue-lines', { lines: [{ code: 'WATER', name: 'Water' }] }, { key: m.api_key });
    expect((await post(t.app, '/api/v1/invoice-lines', { invoice_ref: 'INV-MODE', currency: 'USD', lines: [{ code: 'WATER', amount_minor: 500 }] }, { key: m.api_key })).statusCode).toBe(200);
    const refused = await create({ amount_minor: 500, invoice_ref: 'INV-MODE', currency: 'GHS' });
    expect(refused.statusCode).toBe(409);
    expect(envelope(refused)).toMatchObject({ code: 'INVOICE_CURRENCY_MISMATCH', message: 'currency: invoice INV-MODE is billed in USD, not GHS' });
  });

  it('opening a session writes its first history row (none → open, "created"); a refused create and a replay write none', async () => {
    const historyOf = (id: string) => t.database.db.selectFrom('session_history').select(['from_status', 'to_status', 'cause', 'at']).where('session_id', '=', id).execute();
    const allRows = async () => (await t.database.db.selectFrom('session_history').select('id').execute()).length;
    const res = await post(t.app, SESSIONS, { amount_minor: 700, invoice_ref: 'INV-HIST' }, { key: m.api_key, headers: { 'idempotency-key': 'hist-1' } });
    expect(res.statusCode).toBe(201);
    const s = res.json();
    expect(await historyOf(s.id)).toEqual([{ from_status: 'none', to_status: 'open', cause: 'created', at: s.created_at }]);
    const before = await allRows();
    const replay = await post(t.app, SESSIONS, { amount_minor: 700, invoice_ref: 'INV-HIST' }, { key: m.api_key, headers: { 'idempotency-key': 'hist-1' } });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect((await create({ amount_minor: 500, invoice_ref: 'INV-CUR', currency: 'USD' })).statusCode).toBe(409);
    expect(await allRows()).toBe(before);
  });

  it('creates a new session for an invoice reference that an earlier session paid, leaving that one as it was', async () => {
    const first = (await create({ amount_minor: 900, invoice_ref: 'INV-PAID' })).json();
    await t.database.db.updateTable('checkout_sessions').set({ status: 'success' }).where('id', '=', first.id).execute();
    const res = await create({ amount_minor: 900, invoice_ref: 'INV-PAID' });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ status: 'open', invoice_ref: 'INV-PAID' });
    expect(res.json().id).not.toBe(first.id);
    expect((await get(t.app, `${SESSIONS}/${first.id}`, m.api_key)).json().status).toBe('success');
  });

  it('rejects a JSON body that is not an object', async () => {
    const res = await t.app.inject({ method: 'POST', url: SESSIONS, headers: { authorization: `Bearer ${m.api_key}`, 'content-type': 'application/json' }, payload: '[1,2]' });
    expect(res.statusCode).toBe(400);
    expect(envelope(res).code).toBe('INVALID_ARGUMENT');
  });
});

describe('cross-merchant isolation', () => {
  let t: TestContext;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t.close());

  it("merchant B gets 404 for A's session and A's invoice, never their data", async () => {
    const a = await t.merchant('Isolation A');
    const b = await t.merchant('Isolation B');
    await post(t.app, '/api/v1/revenue-lines', { lines: [{ code: 'RATES', name: 'Property rates' }] }, { key: a.api_key });
    const ingest = await post(t.app, '/api/v1/invoice-lines', { invoice_ref: 'INV-A', lines: [{ code: 'RATES', amount_minor: 4200 }] }, { key: a.api_key });
    expect(ingest.statusCode).toBe(200);
    const s = (await post(t.app, SESSIONS, { amount_minor: 4200, invoice_ref: 'INV-A', description: 'A-only text' }, { key: a.api_key })).json();

    const session = await get(t.app, `${SESSIONS}/${s.id}`, b.api_key);
    expect(session.statusCode).toBe(404);
    expect(envelope(session).code).toBe('NOT_FOUND');
    expect(session.body).not.toContain('A-only text');
    expect(session.body).not.toContain('4200');

    const invoice = await get(t.app, '/api/v1/invoice-lines?invoice_ref=INV-A', b.api_key);
    expect(invoice.statusCode).toBe(404);
    expect(envelope(invoice).code).toBe('NOT_FOUND');
    expect(invoice.body).not.toContain('RATES');

    const lines = await get(t.app, '/api/v1/revenue-lines?include_inactive=true', b.api_key);
    expect(lines.json()).toEqual({ object: 'list', lines: [], counts: { total: 0, active: 0, inactive: 0 } });

    // B cannot bill against A's revenue lines either.
    const bIngest = await post(t.app, '/api/v1/invoice-lines', { invoice_ref: 'INV-A', lines: [{ code: 'RATES', amount_minor: 1 }] }, { key: b.api_key });
    expect(bIngest.statusCode).toBe(207);
    expect(bIngest.json().errors[0].code).toBe('REVENUE_LINE_UNKNOWN');

    // A still sees its own.
    expect((await get(t.app, `${SESSIONS}/${s.id}`, a.api_key)).statusCode).toBe(200);
    expect((await get(t.app, '/api/v1/invoice-lines?invoice_ref=INV-A', a.api_key)).json().total_minor).toBe(4200);
  });

  it('two integrations of the same merchant see the same sessions', async () => {
    const one = await t.merchant('Shared Merchant');
    const two = await t.merchant('Shared Merchant');
    expect(two.merchant_id).toBe(one.merchant_id);
    expect(two.integration_id).not.toBe(one.integration_id);
    const s = (await post(t.app, SESSIONS, { amount_minor: 10, invoice_ref: 'INV-S' }, { key: one.api_key })).json();
    expect((await get(t.app, `${SESSIONS}/${s.id}`, two.api_key)).statusCode).toBe(200);
  });
});
