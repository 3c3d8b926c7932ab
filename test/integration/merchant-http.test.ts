import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../support/app';
import { envelope, multipart } from '../support/http';
import type { CreatedIntegration } from '../../server/modules/integrations/integrations.service';

/** Every POST of the merchant API with a body that is valid once the revenue line WATER is synced. */
const POSTS: Array<{ url: string; body: Record<string, unknown> }> = [
  { url: '/api/v1/revenue-lines', body: { lines: [{ code: 'WATER', name: 'Water' }] } },
  { url: '/api/v1/invoice-lines', body: { invoice_ref: 'INV-H', lines: [{ code: 'WATER', amount_minor: 10 }] } },
  { url: '/api/v1/sessions', body: { amount_minor: 10, invoice_ref: 'INV-H' } },
];

describe('HTTP envelope: content types, sizes, malformed bodies, unknown routes', () => {
  let t: TestContext;
  let m: CreatedIntegration;
  let auth: Record<string, string>;
  beforeAll(async () => {
    t = await createTestApp();
    m = await t.merchant('HTTP Merchant');
    auth = { authorization: `Bearer ${m.api_key}` };
    await t.app.inject({ method: 'POST', url: POSTS[0]!.url, headers: auth, payload: POSTS[0]!.body });
  });
  afterAll(async () => t.close());

  for (const { url, body } of POSTS) {
    describe(`POST ${url}`, () => {
      it('answers 415 UNSUPPORTED_MEDIA_TYPE with the envelope for other content types', async () => {
        for (const type of ['text/plain', 'application/xml', 'application/octet-stream']) {
          const res = await t.app.inject({ method: 'POST', url, headers: { ...auth, 'content-type': type }, payload: JSON.stringify(body) });
          expect(res.statusCode, type).toBe(415);
          expect(envelope(res).code).toBe('UNSUPPORTED_MEDIA_TYPE');
        }
      });

      it('answers 413 PAYLOAD_TOO_LARGE with the envelope for bodies over 1 MiB, in every encoding', async () => {
        const big = 'x'.repeat(1_048_576);
        const json = await t.app.inject({ method: 'POST', url, headers: auth, payload: { ...body, description: big } });
        expect(json.statusCode).toBe(413);
        expect(envelope(json).code).toBe('PAYLOAD_TOO_LARGE');
        const form = await t.app.inject({
          method: 'POST',
          url,
          headers: { ...auth, 'content-type': 'application/x-www-form-urlencoded' },
          payload: `description=${big}`,
        });
        expect(form.statusCode).toBe(413);
        expect(envelope(form).code).toBe('PAYLOAD_TOO_LARGE');
        // Many fields, each under the limit, adding up to more than 1 MiB.
        const fields = Object.fromEntries(Array.from({ length: 4 }, (_, i) => [`pad${i}`, 'y'.repeat(300_000)]));
        const mp = multipart({ ...body, ...fields });
        const res = await t.app.inject({ method: 'POST', url, headers: { ...auth, ...mp.headers }, payload: mp.payload });
        expect(res.statusCode).toBe(413);
        expect(envelope(res).code).toBe('PAYLOAD_TOO_LARGE');
      });

      it('accepts a body just under the limit', async () => {
        const pad = 'p'.repeat(1_000_000);
        const res = await t.app.inject({ method: 'POST', url, headers: auth, payload: { ...body, pad } });
        expect(res.statusCode).toBeLessThan(300);
      });

      it('answers malformed JSON with 400 INVALID_ARGUMENT in the envelope', async () => {
        const res = await t.app.inject({ method: 'POST', url, headers: { ...auth, 'content-type': 'application/json' }, payload: '{"amount_minor": 10,' });
        expect(res.statusCode).toBe(400);
        expect(envelope(res)).toEqual({ code: 'INVALID_ARGUMENT', message: 'body: malformed JSON' });
        const empty = await t.app.inject({ method: 'POST', url, headers: { ...auth, 'content-type': 'application/json' }, payload: '' });
        expect(empty.statusCode).toBe(400);
        expect(envelope(empty).code).toBe('INVALID_ARGUMENT');
      });

      it('answers a POST without a body with 400 INVALID_ARGUMENT', async () => {
        const res = await t.app.inject({ method: 'POST', url, headers: auth });
        expect(res.statusCode).toBe(400);
        expect(envelope(res).code).toBe('INVALID_ARGUMENT');
      });

      it('ignores uploaded files in a multipart body', async () => {
        const boundary = 'b-file';
        const parts = Object.entries(body)
          .filter(([, v]) => typeof v !== 'object')
          .map(([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${String(v)}\r\n`);
        if (url.endsWith('revenue-lines')) parts.push(`--${boundary}\r\nContent-Disposition: form-data; name="lines[0][code]"\r\n\r\nWATER\r\n`, `--${boundary}\r\nContent-Disposition: form-data; name="lines[0][name]"\r\n\r\nWater\r\n`);
        if (url.endsWith('invoice-lines')) parts.push(`--${boundary}\r\nContent-Disposition: form-data; name="lines[0][code]"\r\n\r\nWATER\r\n`, `--${boundary}\r\nContent-Disposition: form-data; name="lines[0][amount_minor]"\r\n\r\n10\r\n`);
        parts.push(`--${boundary}\r\nContent-Disposition: form-data; name="attachment"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nhello\r\n`);
        const res = await t.app.inject({
          method: 'POST',
          url,
          headers: { ...auth, 'content-type': `multipart/form-data; boundary=${boundary}` },
          payload: `${parts.join('')}--${boundary}--\r\n`,
        });
        expect(res.statusCode, res.body).toBeLessThan(300);
        expect(res.body).not.toContain('hello');
      });
    });
  }

  it('answers unknown routes and methods with 404 NOT_FOUND in the envelope', async () => {
    for (const [method, url] of [
      ['GET', '/api/v1/nothing-here'],
      ['GET', '/no/such/page'],
      ['DELETE', '/api/v1/sessions'],
      ['PUT', '/api/v1/revenue-lines'],
    ] as const) {
      const res = await t.app.inject({ method, url, headers: auth });
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(envelope(res).code).toBe('NOT_FOUND');
    }
  });

  it('answers router-level failures in the envelope too: over-long path parameters 404, bad percent-encoding 400', async () => {
    const long = await t.app.inject({ method: 'GET', url: `/api/v1/sessions/${'x'.repeat(500)}`, headers: auth });
    expect(long.statusCode).toBe(404);
    expect(envelope(long).code).toBe('NOT_FOUND');
    const bad = await t.app.inject({ method: 'GET', url: '/api/v1/sessions/%E0%A4%A', headers: auth });
    expect(bad.statusCode).toBe(400);
    expect(envelope(bad).code).toBe('INVALID_ARGUMENT');
  });

  it('never answers with a stack trace or SQL text', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/sessions', headers: { ...auth, 'content-type': 'application/json' }, payload: '{"__proto__": {"x": 1}, "amount_minor": 1}' });
    expect(res.statusCode).toBe(400);
    expect(res.body).not.toMatch(/at .*\.(ts|js):\d+|SELECT|INSERT|sqlite/i);
  });

  it('answers GET /healthz with 200', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/healthz' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok', version: expect.any(String), commit: expect.any(String) });
  });
});

describe('API documentation', () => {
  let t: TestContext;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t.close());

  it('serves a valid OpenAPI 3.1 document that lists every merchant path', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toMatch(/^3\.1\./);
    expect(doc.info.version).toBe('2026-06');

    // Structural checks of a 3.1 document (no meta-schema ships offline): operations have
    // responses, every path template parameter is declared, every $ref resolves.
    expect(typeof doc.info.title).toBe('string');
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, { responses?: object; parameters?: Array<{ name: string; in: string; required?: boolean }> }>>)) {
      expect(path.startsWith('/')).toBe(true);
      const templated = [...path.matchAll(/\{(\w+)\}/g)].map((x) => x[1]);
      for (const [method, op] of Object.entries(item)) {
        expect(['get', 'post', 'put', 'patch', 'delete']).toContain(method);
        expect(op.responses, `${method} ${path}`).toBeTypeOf('object');
        for (const name of templated) {
          expect(op.parameters?.find((p) => p.in === 'path' && p.name === name), `${method} ${path} declares ${name}`).toMatchObject({ required: true });
        }
      }
    }
    const refs: string[] = [];
    const walk = (v: unknown): void => {
      if (Array.isArray(v)) v.forEach(walk);
      else if (v && typeof v === 'object') {
        for (const [k, x] of Object.entries(v)) {
          if (k === '$ref' && typeof x === 'string') refs.push(x);
          else walk(x);
        }
      }
    };
    walk(doc);
    for (const ref of refs) {
      expect(ref.startsWith('#/'), ref).toBe(true);
      const target = ref.slice(2).split('/').reduce<unknown>((o, k) => (o as Record<string, unknown> | undefined)?.[k.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
      expect(target, ref).toBeTypeOf('object');
    }

    const ops = (path: string) => Object.keys(doc.paths[path] ?? {}).sort();
    expect(ops('/api/v1/revenue-lines')).toEqual(['get', 'post']);
    expect(ops('/api/v1/invoice-lines')).toEqual(['get', 'post']);
    expect(ops('/api/v1/sessions')).toEqual(['post']);
    expect(ops('/api/v1/sessions/{reference}')).toEqual(['get']);
    const create = doc.paths['/api/v1/sessions'].post;
    expect(Object.keys(create.responses)).toEqual(expect.arrayContaining(['201', '400', '401', '409', '422', '429']));
    expect(create.requestBody.content['application/json'].schema.properties.amount_minor).toMatchObject({ type: 'integer', minimum: 1 });
    expect(create.parameters.some((p: { name: string; in: string }) => p.in === 'header' && p.name === 'idempotency-key')).toBe(true);
    expect(doc.paths['/api/v1/revenue-lines'].post.responses).toHaveProperty('207');
    expect(doc.paths['/api/v1/invoice-lines'].post.responses).toHaveProperty('207');
    expect(doc.components.securitySchemes.apiKey).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('serves the reference page at /docs', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/docs' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
  });
});
