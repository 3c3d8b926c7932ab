import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../support/app';
import { envelope, multipart, urlencoded } from '../support/http';
import { MAX_JSON_DEPTH } from '../../server/http/body-parsers';
import { staff } from '../support/backoffice';

/** Every malformed body on every endpoint is a 4xx envelope. */
describe('malformed bodies on every endpoint that takes one', () => {
  let t: TestContext;
  let merchantKey: string;
  let staffToken: string;
  let routes: Array<{ method: string; url: string; hasBody: boolean }>;

  beforeAll(async () => {
    t = await createTestApp();
    merchantKey = (await t.merchant()).api_key;
    staffToken = (await staff(t, 'admin')).token;
    // Every POST route the router holds (not only those the OpenAPI document shows).
    const stack: string[] = [];
    const all = t.app
      .printRoutes({ commonPrefix: false, method: 'POST' })
      .split('\n')
      .flatMap((line) => {
        const m = /^((?:│ {3}| {4})*)(?:├── |└── )(\S+) \((.+)\)$/.exec(line);
        if (!m) return [];
        const depth = m[1]!.length / 4;
        stack[depth] = (depth > 0 ? stack[depth - 1]! : '') + m[2]!;
        return [stack[depth]!];
      });
    const doc = t.app.swagger() as { paths: Record<string, Record<string, { requestBody?: unknown }>> };
    const withBody = new Set(
      Object.entries(doc.paths).flatMap(([path, ops]) => (ops.post?.requestBody ? [path.replace(/\{([^}]+)\}/g, ':$1')] : [])),
    );
    routes = all.map((url) => ({ method: 'POST', url: url.replace(/:[a-z_]+/g, 'x'), hasBody: withBody.has(url) }));
  });
  afterAll(async () => t.close());

  const send = (route: { method: string; url: string }, contentType: string, payload: string): Promise<LightMyRequestResponse> => {
    const token = route.url.startsWith('/api/backoffice/') ? staffToken : route.url.startsWith('/api/v1/checkout/') ? undefined : merchantKey;
    return t.app.inject({
      method: route.method as 'POST',
      url: route.url,
      headers: { 'content-type': contentType, ...(token ? { authorization: `Bearer ${token}` } : {}) },
      payload,
    });
  };

  const cases: Array<{ name: string; type: string; body: string; status: number; message: RegExp; bodyRoutesOnly?: boolean }> = [
    { name: 'multipart without a boundary', type: 'multipart/form-data', body: 'a=1', status: 400, message: /^body: malformed multipart\/form-data/ },
    {
      name: 'multipart whose boundary does not match the body',
      type: 'multipart/form-data; boundary=expected',
      body: '--other\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--other--\r\n',
      status: 400,
      message: /^body: malformed multipart\/form-data/,
    },
    { name: 'truncated multipart', type: 'multipart/form-data; boundary=b', body: '--b\r\nContent-Disposition: form-data; name="a"\r\n\r\n1', status: 400, message: /^body: malformed multipart/ },
    { name: 'malformed JSON', type: 'application/json', body: '{"a":', status: 400, message: /^body: malformed JSON$/ },
    // Routes without a body (resend, approve, logout) accept an empty JSON body.
    { name: 'empty JSON', type: 'application/json', body: '', status: 400, message: /^body: a JSON body is required/, bodyRoutesOnly: true },
    {
      name: `JSON nested deeper than ${MAX_JSON_DEPTH}`,
      type: 'application/json',
      body: `{"metadata":${'['.repeat(20_000)}${']'.repeat(20_000)}}`,
      status: 400,
      message: new RegExp(`^body: nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep$`),
    },
    { name: 'a body of another type', type: 'text/plain', body: 'hello', status: 415, message: /Content-Type must be/ },
  ];

  for (const c of cases) {
    it(`answers ${c.name} with ${c.status} in the envelope`, async () => {
      expect(routes.length).toBeGreaterThan(30);
      expect(routes.filter((r) => r.hasBody).length).toBeGreaterThan(5);
      for (const route of routes.filter((r) => r.hasBody || !c.bodyRoutesOnly)) {
        const res = await send(route, c.type, c.body);
        // Sign-in takes JSON only (a cross-site form must not spend a guess): any other type is 415 before the body is read.
        const jsonOnly = route.url === '/api/backoffice/v1/auth/login' && !c.type.startsWith('application/json');
        const [status, message] = jsonOnly ? [415, /^sign-in takes a JSON body only/] : [c.status, c.message];
        expect(res.statusCode, `${route.method} ${route.url}: ${res.body}`).toBe(status);
        const err = envelope(res);
        expect(err.code).toBe(status === 415 ? 'UNSUPPORTED_MEDIA_TYPE' : 'INVALID_ARGUMENT');
        expect(err.message, `${route.method} ${route.url}`).toMatch(message);
      }
    });
  }

  it('accepts JSON nested exactly to the limit where the schema allows free-form values (metadata)', async () => {
    const nested = `${'{"a":'.repeat(MAX_JSON_DEPTH - 2)}1${'}'.repeat(MAX_JSON_DEPTH - 2)}`;
    const res = await send({ method: 'POST', url: '/api/v1/sessions' }, 'application/json', `{"amount_minor":100,"invoice_ref":"DEEP-1","metadata":${nested}}`);
    expect(res.statusCode, res.body).toBe(201);
  });
});

describe('a __proto__ key in valid JSON', () => {
  let t: TestContext;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp();
    key = (await t.merchant()).api_key;
  });
  afterAll(async () => t.close());

  it('is refused naming the object that holds it (metadata), not as malformed JSON', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/sessions',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      payload: '{"amount_minor":100,"invoice_ref":"P-1","metadata":{"__proto__":{"admin":true}}}',
    });
    expect(res.statusCode).toBe(400);
    expect(envelope(res)).toEqual({ code: 'INVALID_ARGUMENT', message: 'metadata: key "__proto__" is not allowed' });
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });

  it('is refused the same way in urlencoded and multipart bodies (metadata[__proto__][admin]=1)', async () => {
    for (const encoded of [urlencoded({}), multipart({})]) {
      const fields = [['amount_minor', '100'], ['invoice_ref', 'P-4'], ['metadata[__proto__][admin]', 'true']];
      const payload = encoded.headers['content-type']!.startsWith('multipart')
        ? `${fields.map(([k, v]) => `------paydesk-test-boundary\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`).join('')}------paydesk-test-boundary--\r\n`
        : fields.map(([k, v]) => `${encodeURIComponent(k!)}=${encodeURIComponent(v!)}`).join('&');
      const res = await t.app.inject({ method: 'POST', url: '/api/v1/sessions', headers: { authorization: `Bearer ${key}`, ...encoded.headers }, payload });
      expect(res.statusCode, res.body).toBe(400);
      expect(envelope(res)).toEqual({ code: 'INVALID_ARGUMENT', message: 'metadata: key "__proto__" is not allowed' });
    }
  });

  it('names the path of a nested holder, and the body at the top level', async () => {
    const inject = (payload: string) =>
      t.app.inject({ method: 'POST', url: '/api/v1/invoice-lines', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, payload });
    expect(envelope(await inject('{"invoice_ref":"P-2","lines":[{"code":"A","amount_minor":1},{"__proto__":{}}]}')).message).toBe('lines[1]: key "__proto__" is not allowed');
    expect(envelope(await inject('{"__proto__":{},"invoice_ref":"P-3","lines":[]}')).message).toBe('body: key "__proto__" is not allowed');
  });
});

describe('over-long ids on back-office routes', () => {
  let t: TestContext;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t.close());

  it('answer 404 NOT_FOUND whatever their length (deposit, delivery, endpoint, staff), not a validation error', async () => {
    const admin = await staff(t, 'admin');
    const supervisor = await staff(t, 'supervisor');
    const cases: Array<[string, 'GET' | 'POST', (id: string) => string]> = [
      [supervisor.token, 'GET', (id) => `/api/backoffice/v1/deposits/${id}`],
      [supervisor.token, 'POST', (id) => `/api/backoffice/v1/deposits/${id}/approve`],
      [admin.token, 'GET', (id) => `/api/backoffice/v1/webhooks/deliveries/${id}`],
      [admin.token, 'POST', (id) => `/api/backoffice/v1/webhooks/endpoints/${id}/enable`],
      [admin.token, 'POST', (id) => `/api/backoffice/v1/admin/staff/${id}/disable`],
    ];
    for (const [token, method, url] of cases) {
      for (const length of [10, 81, 100, 101, 500]) {
        const res = await t.app.inject({ method, url: url('d'.repeat(length)), headers: { authorization: `Bearer ${token}` } });
        expect(res.statusCode, `${method} ${url('…')} (${length}): ${res.body}`).toBe(404);
        expect(envelope(res).code).toBe('NOT_FOUND');
      }
    }
  });
});
