import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../server/http/openapi-operations';
import { createTestApp, type TestContext } from '../support/app';
import { fetchOpenApi, operations, type OpenApiDocument } from '../support/openapi';

const ENVELOPE_REF = '#/components/schemas/ErrorEnvelope';

describe('OpenAPI document: every operation is complete', () => {
  let t: TestContext;
  let doc: OpenApiDocument;
  beforeAll(async () => {
    t = await createTestApp({ publicBaseUrl: 'https://pay.example.com' });
    doc = await fetchOpenApi(t.app);
  });
  afterAll(() => t.close());

  it('documents exactly the operations of the table, each with its operationId, summary and a declared tag', () => {
    const ops = operations(doc);
    expect(ops.map(([key]) => key).sort()).toEqual(Object.keys(OPERATIONS).sort());
    const declaredTags = new Set((doc.tags ?? []).map((tag) => tag.name));
    for (const [key, op] of ops) {
      expect(op.operationId, key).toBe(OPERATIONS[key]?.operationId);
      expect(op.operationId, key).toMatch(/^[a-z][A-Za-z]+$/);
      expect(op.summary, key).toBeTruthy();
      expect(op.tags?.length, key).toBe(1);
      expect(declaredTags.has(op.tags![0]!), `${key}: tag ${op.tags![0]} is not in TAGS`).toBe(true);
    }
    const ids = ops.map(([, op]) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('declares who may call: the API key for the merchant API, nothing for checkout and sign-in, staff credentials for the back office', () => {
    expect(doc.components.securitySchemes).toMatchObject({
      apiKey: { type: 'http', scheme: 'bearer' },
      staffToken: { type: 'http', scheme: 'bearer' },
      staffSession: { type: 'apiKey', in: 'cookie', name: 'paydesk_staff' },
    });
    for (const [key, op] of operations(doc)) {
      const path = key.split(' ')[1]!;
      if (path.startsWith('/api/v1/checkout/') || key === 'POST /api/backoffice/v1/auth/login' || key.endsWith(' /api/backoffice/v1/setup')) expect(op.security, key).toEqual([]);
      else if (path.startsWith('/api/v1/')) expect(op.security, key).toEqual([{ apiKey: [] }]);
      else expect(op.security, key).toEqual([{ staffToken: [] }, { staffSession: [] }]);
    }
    expect(doc.paths['/api/v1/sessions']?.post?.operationId).toBe('createCheckoutSession');
    expect(doc.paths['/api/v1/checkout/sessions/{reference}/quote']?.get?.operationId).toBe('getPublicQuote');
    expect(doc.paths['/api/backoffice/v1/deposits/{deposit_id}/approve']?.post?.operationId).toBe('approveDeposit');
  });

  it('gives every operation a described 2xx answer and its 4xx answers, each with the shared error envelope', () => {
    expect(doc.components.schemas?.ErrorEnvelope).toMatchObject({ type: 'object', required: ['error'] });
    for (const [key, op] of operations(doc)) {
      const statuses = Object.keys(op.responses);
      expect(statuses.some((s) => s.startsWith('2')), key).toBe(true);
      const errors = statuses.filter((s) => Number(s) >= 400);
      expect(errors.length, key).toBeGreaterThan(0);
      for (const s of errors) {
        expect(op.responses[s]?.content?.['application/json']?.schema, `${key} ${s}`).toEqual({ $ref: ENVELOPE_REF });
      }
      for (const s of statuses) expect(op.responses[s]?.description, `${key} ${s}`).not.toBe('Default Response');
      if (op.requestBody) expect(statuses, key).toEqual(expect.arrayContaining(['413', '415']));
    }
    expect(Object.keys(doc.paths['/api/v1/sessions']!.post!.responses)).toEqual(['201', '400', '401', '404', '409', '413', '415', '422', '429']);
    expect(doc.paths['/api/backoffice/v1/reports/payments.csv']?.get?.responses['200']?.content).toHaveProperty('text/csv');
  });

  it('describes every administration answer field by field, not as "anything"', () => {
    const admin = operations(doc).filter(([key]) => key.split(' ')[1]!.startsWith('/api/backoffice/v1/admin/'));
    expect(admin.length).toBeGreaterThanOrEqual(20);
    for (const [key, op] of admin) {
      const ok = Object.keys(op.responses).find((s) => s.startsWith('2'))!;
      const schema = op.responses[ok]?.content?.['application/json']?.schema as { type?: string; properties?: Record<string, unknown> } | undefined;
      expect(schema?.type, `${key} ${ok}`).toBe('object');
      expect(Object.keys(schema?.properties ?? {}).length, `${key} ${ok}`).toBeGreaterThan(0);
    }
  });

  it('names this instance in servers: PUBLIC_BASE_URL', () => {
    expect(doc.servers).toEqual([expect.objectContaining({ url: 'https://pay.example.com' })]);
  });

  it('describes the audit snapshots as objects, not as "anything"', () => {
    const entry = (doc.paths['/api/backoffice/v1/audit']!.get!.responses['200']!.content!['application/json']!.schema as {
      properties: { entries: { items: { properties: Record<string, { anyOf: unknown[] }> } } };
    }).properties.entries.items.properties;
    for (const field of ['before', 'after']) {
      expect(entry[field]!.anyOf).toEqual([expect.objectContaining({ type: 'object' }), { type: 'null' }]);
    }
  });
});

describe('OpenAPI document: routes cannot go undocumented', () => {
  it('refuses to build the document while a route has no entry in the operations table, naming the route', async () => {
    const t = await createTestApp({
      extend: (app) => {
        app.get('/api/v1/forgotten/:id', { schema: { tags: ['Checkout sessions'], summary: 'A route nobody documented' } }, async () => ({}));
      },
    });
    try {
      expect(() => t.app.swagger()).toThrow(/GET \/api\/v1\/forgotten\/\{id\} has no entry in server\/http\/openapi-operations\.ts/);
    } finally {
      await t.close();
    }
  });

  it('leaves hidden routes (pages, health, the document itself) out without an entry', async () => {
    const t = await createTestApp({
      extend: (app) => {
        app.get('/internal-probe', { schema: { hide: true } }, async () => ({}));
      },
    });
    try {
      const doc = await fetchOpenApi(t.app);
      expect(Object.keys(doc.paths).filter((p) => !p.startsWith('/api/'))).toEqual([]);
    } finally {
      await t.close();
    }
  });

  it('names the listening address in servers when PUBLIC_BASE_URL is not set', async () => {
    const t = await createTestApp({ publicBaseUrl: null });
    try {
      const base = await t.app.listen({ port: 0, host: '127.0.0.1' });
      const doc = (await (await fetch(`${base}/docs/json`)).json()) as OpenApiDocument;
      expect(doc.servers).toEqual([expect.objectContaining({ url: base })]);
    } finally {
      await t.close();
    }
  });
});
