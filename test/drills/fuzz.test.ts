import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../support/app';
import { openSession, startMomo } from '../support/checkout';
import type { CreatedIntegration } from '../../server/modules/integrations/integrations.service';

/**
 * Property-based fuzzing of every merchant and public endpoint: arbitrary bodies, query strings
 * and path segments never give a 5xx, the server keeps answering, and nothing is left
 * half-written (no idempotency key stuck in flight, no terminal session without its event,
 * no pending session without something pending on it, no pending attempt on a session that is not pending).
 */
describe('drill: fuzzing every endpoint', () => {
  let t: TestContext;
  let m: CreatedIntegration;
  let session = '';
  let attempt = '';
  beforeAll(async () => {
    t = await createTestApp();
    m = await t.merchant('Fuzz Merchant');
    session = (await openSession(t, m)).id;
    const s2 = await openSession(t, m);
    attempt = (await startMomo(t, s2.id)).attempt_reference;
    session = `${session}|${s2.id}`;
  });
  afterAll(async () => t.close());

  const segment = fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom('cs_test_x', '..', '%00', '%E0%A4%A', 'a'.repeat(300)));
  const json = fc.oneof(
    fc.jsonValue({ maxDepth: 3 }),
    fc.record({
      amount_minor: fc.oneof(fc.integer(), fc.double(), fc.string(), fc.constant(null)),
      invoice_ref: fc.oneof(fc.string({ maxLength: 130 }), fc.integer()),
      currency: fc.string({ maxLength: 4 }),
      lines: fc.array(fc.record({ code: fc.string({ maxLength: 70 }), amount_minor: fc.integer(), name: fc.string() }, { requiredKeys: [] }), { maxLength: 5 }),
      rail: fc.constantFrom('momo', 'card', 'bank_transfer', 'cash', 'x'),
      operator: fc.constantFrom('mtn', 'telecel', 'nope'),
      phone: fc.oneof(fc.constant('0241234567'), fc.string({ maxLength: 14 })),
      code: fc.string({ maxLength: 8 }),
      session_id: fc.string({ maxLength: 90 }),
      metadata: fc.dictionary(fc.string({ maxLength: 45 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 4 }),
      customer: fc.jsonValue({ maxDepth: 1 }),
    }, { requiredKeys: [] }),
  );
  const query = fc.dictionary(fc.constantFrom('invoice_ref', 'include_inactive', 'refresh', 'x', 'invoice_ref[]'), fc.string({ maxLength: 20 }), { maxKeys: 3 });

  type Route = { method: 'GET' | 'POST'; path: (seg: string, ids: { s: string; a: string }) => string; merchant: boolean };
  const routes: Route[] = [
    { method: 'POST', path: () => '/api/v1/sessions', merchant: true },
    { method: 'GET', path: (x, ids) => `/api/v1/sessions/${x || ids.s}`, merchant: true },
    { method: 'POST', path: () => '/api/v1/invoice-lines', merchant: true },
    { method: 'GET', path: () => '/api/v1/invoice-lines', merchant: true },
    { method: 'POST', path: () => '/api/v1/revenue-lines', merchant: true },
    { method: 'GET', path: () => '/api/v1/revenue-lines', merchant: true },
    { method: 'GET', path: () => '/api/v1/checkout/options', merchant: false },
    { method: 'GET', path: (x, ids) => `/api/v1/checkout/sessions/${x || ids.s}`, merchant: false },
    { method: 'GET', path: (x, ids) => `/api/v1/checkout/sessions/${x || ids.s}/quote`, merchant: false },
    { method: 'POST', path: (x, ids) => `/api/v1/checkout/sessions/${x || ids.s}/provider-attempts`, merchant: false },
    { method: 'GET', path: (x, ids) => `/api/v1/checkout/sessions/${ids.s}/provider-attempts/${x || ids.a}`, merchant: false },
    { method: 'POST', path: (x, ids) => `/api/v1/checkout/sessions/${ids.s}/provider-attempts/${x || ids.a}/authorize`, merchant: false },
    { method: 'POST', path: (x, ids) => `/api/v1/checkout/sessions/${ids.s}/provider-attempts/${x || ids.a}/resend`, merchant: false },
    { method: 'POST', path: (x, ids) => `/api/v1/checkout/sessions/${x || ids.s}/card-payments`, merchant: false },
    { method: 'POST', path: () => '/api/v1/checkout/cash-slips', merchant: false },
  ];

  it('no 5xx, the server stays up, nothing half-written', async () => {
    const [s1, s2] = session.split('|') as [string, string];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...routes),
        fc.oneof(fc.constant(''), segment),
        json,
        query,
        fc.constantFrom('json', 'form', 'none'),
        fc.boolean(),
        fc.option(fc.string({ minLength: 1, maxLength: 20 }), { nil: undefined }),
        async (route, seg, body, q, encoding, useS2, idemKey) => {
          const ids = { s: useS2 ? s2 : s1, a: attempt };
          const qs = new URLSearchParams(q).toString();
          const url = `${route.path(encodeURIComponent(seg), ids)}${qs ? `?${qs}` : ''}`;
          const headers: Record<string, string> = {};
          if (route.merchant) headers.authorization = `Bearer ${m.api_key}`;
          if (idemKey !== undefined) headers['idempotency-key'] = idemKey;
          let payload: string | undefined;
          if (route.method === 'POST' && encoding === 'json') {
            headers['content-type'] = 'application/json';
            payload = JSON.stringify(body);
          } else if (route.method === 'POST' && encoding === 'form') {
            headers['content-type'] = 'application/x-www-form-urlencoded';
            const fields: Array<[string, string]> =
              body && typeof body === 'object' && !Array.isArray(body) ? Object.entries(body).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]) : [];
            payload = new URLSearchParams(fields).toString();
          }
          const res = await t.app.inject({ method: route.method, url, headers, ...(payload === undefined ? {} : { payload }) });
          expect(res.statusCode, `${route.method} ${url} ${payload ?? ''} → ${res.body}`).toBeLessThan(500);
        },
      ),
      { numRuns: 600, seed: Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31) },
    );

    expect((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    const db = t.database.sqlite;
    expect((db.prepare("SELECT count(*) AS n FROM idempotency_keys WHERE state = 'in_flight'").get() as { n: number }).n).toBe(0);
    const terminalWithoutEvent = db
      .prepare(
        "SELECT count(*) AS n FROM checkout_sessions s WHERE s.status IN ('success','failed','expired') AND (SELECT count(*) FROM events e WHERE e.session_id = s.id) <> 1",
      )
      .get() as { n: number };
    expect(terminalWithoutEvent.n).toBe(0);
    const pendingWithoutCause = db
      .prepare(
        `SELECT count(*) AS n FROM checkout_sessions s WHERE s.status = 'pending'
           AND NOT EXISTS (SELECT 1 FROM payment_attempts a WHERE a.session_id = s.id AND a.status = 'pending')
           AND NOT EXISTS (SELECT 1 FROM cash_slips c WHERE c.session_id = s.id AND c.status = 'under_review')`,
      )
      .get() as { n: number };
    expect(pendingWithoutCause.n).toBe(0);
    // The converse: a pending attempt only on a pending session (attempt start skips its replay lookup on an open one).
    const pendingAttemptElsewhere = db
      .prepare("SELECT count(*) AS n FROM payment_attempts a JOIN checkout_sessions s ON s.id = a.session_id WHERE a.status = 'pending' AND s.status <> 'pending'")
      .get() as { n: number };
    expect(pendingAttemptElsewhere.n).toBe(0);
  });
});
