import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../support/app';
import { envelope, post } from '../support/http';
import { storedBytes } from '../support/stored-data';
import { revokeApiKey, type CreatedIntegration } from '../../server/modules/integrations/integrations.service';

const ENDPOINTS: Array<{ method: 'GET' | 'POST'; url: string; body?: object }> = [
  { method: 'POST', url: '/api/v1/revenue-lines', body: { lines: [{ code: 'A', name: 'A' }] } },
  { method: 'GET', url: '/api/v1/revenue-lines' },
  { method: 'POST', url: '/api/v1/invoice-lines', body: { invoice_ref: 'INV-1', lines: [{ code: 'A', amount_minor: 1 }] } },
  { method: 'GET', url: '/api/v1/invoice-lines?invoice_ref=INV-1' },
  { method: 'POST', url: '/api/v1/sessions', body: { amount_minor: 100, invoice_ref: 'INV-1' } },
  { method: 'GET', url: '/api/v1/sessions/cs_test_anything' },
];

describe('401 UNAUTHORIZED on every merchant endpoint', () => {
  let t: TestContext;
  let m: CreatedIntegration;
  beforeAll(async () => {
    t = await createTestApp();
    m = await t.merchant('Auth Merchant');
  });
  afterAll(async () => t.close());

  const send = (e: (typeof ENDPOINTS)[number], authorization?: string) =>
    t.app.inject({ method: e.method, url: e.url, headers: authorization === undefined ? {} : { authorization }, ...(e.body ? { payload: e.body } : {}) });

  const expect401 = (res: Awaited<ReturnType<typeof send>>, what: string) => {
    expect(res.statusCode, what).toBe(401);
    const err = envelope(res);
    expect(err.code).toBe('UNAUTHORIZED');
    expect(err.message).toMatch(/invalid API key/);
  };

  it('missing, malformed and unknown keys all answer the same 401 envelope', async () => {
    const variants: Array<[string, string | undefined]> = [
      ['missing', undefined],
      ['empty', ''],
      ['no scheme', m.api_key],
      ['basic scheme', `Basic ${Buffer.from(`${m.api_key}:`).toString('base64')}`],
      ['bearer without token', 'Bearer '],
      ['not a key', 'Bearer hello'],
      ['wrong prefix', `Bearer sk_test_${m.api_key.slice(8)}`],
      ['unknown key', `Bearer ak_test_${'Z'.repeat(32)}`],
      ['truncated key', `Bearer ${m.api_key.slice(0, -1)}`],
      ['key plus junk', `Bearer ${m.api_key} extra`],
    ];
    for (const e of ENDPOINTS) {
      for (const [name, header] of variants) expect401(await send(e, header), `${e.method} ${e.url} ${name}`);
    }
  });

  it('the key works, then answers 401 on every endpoint once revoked through the CLI service', async () => {
    const k = await t.merchant('Revoked Merchant');
    const ok = await send(ENDPOINTS[1]!, `Bearer ${k.api_key}`);
    expect(ok.statusCode).toBe(200);
    const revoked = await revokeApiKey(t.database.db, t.clock, k.api_key);
    expect(revoked.revoked_at).toBe(t.clock.now().toISOString());
    for (const e of ENDPOINTS) expect401(await send(e, `Bearer ${k.api_key}`), `${e.method} ${e.url} revoked`);
    // Revoking one key leaves the merchant's other integrations working.
    expect((await send(ENDPOINTS[1]!, `Bearer ${m.api_key}`)).statusCode).toBe(200);
  });

  it('accepts the scheme case-insensitively, as RFC 9110 asks', async () => {
    expect((await send(ENDPOINTS[1]!, `bearer ${m.api_key}`)).statusCode).toBe(200);
  });

  it('stores no plaintext API key in the database (SQLite: the file and its WAL; PostgreSQL: every row of every table)', async () => {
    const keys = [m.api_key, (await t.merchant('Plaintext Merchant')).api_key];
    for (const key of keys) {
      await post(t.app, '/api/v1/sessions', { amount_minor: 5, invoice_ref: 'INV-PLAIN' }, { key, headers: { 'idempotency-key': 'plain-1' } });
    }
    for (const bytes of await storedBytes(t.database)) {
      expect(bytes.length).toBeGreaterThan(0);
      for (const key of keys) {
        expect(bytes.includes(Buffer.from(key))).toBe(false);
        expect(bytes.includes(Buffer.from(key.slice(8)))).toBe(false); // the secret part alone
        expect(bytes.includes(Buffer.from(key.slice(0, 12)))).toBe(true); // the visible prefix is kept
      }
    }
  });
});

describe('429 RATE_LIMITED', () => {
  let t: TestContext;
  beforeAll(async () => {
    t = await createTestApp({
      rateLimitPerMin: 3,
      extend: (app) => {
        // A stand-in public (no credential) route: public endpoints are bucketed per client IP.
        app.get('/api/v1/checkout/rate-limit-probe', async () => ({ ok: true }));
      },
    });
  });
  afterAll(async () => t.close());

  const list = (key: string, remoteAddress = '127.0.0.1') =>
    t.app.inject({ method: 'GET', url: '/api/v1/revenue-lines', headers: { authorization: `Bearer ${key}` }, remoteAddress });

  const expect429 = (res: Awaited<ReturnType<typeof list>>) => {
    expect(res.statusCode).toBe(429);
    const err = envelope(res);
    expect(err.code).toBe('RATE_LIMITED');
    expect(Number.isInteger(err.retry_after_seconds)).toBe(true);
    expect(err.retry_after_seconds).toBeGreaterThanOrEqual(1);
    expect(err.retry_after_seconds).toBeLessThanOrEqual(60);
    expect(res.headers['retry-after']).toBe(String(err.retry_after_seconds));
  };

  it('limits each API key separately, whatever the client address', async () => {
    const a = await t.merchant('Rate A');
    const b = await t.merchant('Rate B');
    for (let i = 0; i < 3; i++) expect((await list(a.api_key, `10.0.0.${i + 1}`)).statusCode).toBe(200);
    expect429(await list(a.api_key, '10.0.0.99'));
    const write = await post(t.app, '/api/v1/sessions', { amount_minor: 1, invoice_ref: 'INV-R' }, { key: a.api_key });
    expect429(write);
    // B shares the address but not the bucket.
    for (let i = 0; i < 3; i++) expect((await list(b.api_key, '10.0.0.99')).statusCode).toBe(200);
    expect429(await list(b.api_key));
  });

  it('limits public endpoints per client IP', async () => {
    const probe = (remoteAddress: string) => t.app.inject({ method: 'GET', url: '/api/v1/checkout/rate-limit-probe', remoteAddress });
    for (let i = 0; i < 3; i++) expect((await probe('192.0.2.1')).statusCode).toBe(200);
    expect429(await probe('192.0.2.1'));
    expect((await probe('192.0.2.2')).statusCode).toBe(200);
  });

  it('counts calls with made-up, malformed or missing keys against the client IP, so they are limited too', async () => {
    const made = () => `ak_test_${Math.random().toString(36).slice(2).padEnd(32, 'x')}`;
    for (let i = 0; i < 3; i++) expect((await list(made(), '198.51.100.7')).statusCode).toBe(401);
    expect429(await list(made(), '198.51.100.7'));
    expect429(await t.app.inject({ method: 'GET', url: '/api/v1/revenue-lines', remoteAddress: '198.51.100.7' }));
    // Another address has its own bucket, and a real key from the limited address still works.
    expect((await list(made(), '198.51.100.8')).statusCode).toBe(401);
    const c = await t.merchant('Rate C');
    expect((await list(c.api_key, '198.51.100.7')).statusCode).toBe(200);
  });

  it('does not count health checks or docs', async () => {
    for (let i = 0; i < 5; i++) expect((await t.app.inject({ method: 'GET', url: '/healthz', remoteAddress: '192.0.2.9' })).statusCode).toBe(200);
  });
});

describe('rate limiting disabled with RATE_LIMIT_PER_MIN=0', () => {
  it('never answers 429', async () => {
    const t = await createTestApp({ rateLimitPerMin: 0 });
    try {
      const m = await t.merchant();
      for (let i = 0; i < 30; i++) {
        const res = await t.app.inject({ method: 'GET', url: '/api/v1/revenue-lines', headers: { authorization: `Bearer ${m.api_key}` } });
        expect(res.statusCode).toBe(200);
      }
    } finally {
      await t.close();
    }
  });
});
