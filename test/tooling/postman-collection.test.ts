import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COLLECTION_FILE, ENVIRONMENT_FILE, collectionFiles } from '../../scripts/openapi/collection';
import { createTestApp, type TestContext } from '../support/app';
import { fetchOpenApi, operations } from '../support/openapi';

interface PostmanRequest {
  method: string;
  auth: { type: string; bearer?: Array<{ key: string; value: string }> };
  url: { raw: string; path: string[] };
  header: Array<{ key: string; value: string }>;
  body?: { mode: string; raw: string };
}
interface PostmanCollection {
  info: { schema: string };
  item: Array<{ name: string; item: Array<{ name: string; request: PostmanRequest }> }>;
}

const committed = (file: string) => readFileSync(file, 'utf8');
const collection = () => JSON.parse(committed(COLLECTION_FILE)) as PostmanCollection;
const requests = () => collection().item.flatMap((folder) => folder.item.map((i) => i.request));

describe('Postman collection (docs/collections/)', () => {
  let t: TestContext;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('is what `npm run collection` generates from the current document (run it when this fails)', async () => {
    const files = await collectionFiles();
    for (const [file, text] of Object.entries(files)) expect(committed(file), `${file} is out of date: run npm run collection`).toBe(text);
  });

  it('holds every operation of the document once, in Postman v2.1 format, with the credential the operation needs', async () => {
    const doc = await fetchOpenApi(t.app);
    expect(collection().info.schema).toBe('https://schema.getpostman.com/json/collection/v2.1.0/collection.json');
    const byKey = new Map(requests().map((r) => [`${r.method} /${r.url.path.map((s) => s.replace(/^:(.+)$/, '{$1}')).join('/')}`, r]));
    const ops = operations(doc);
    expect(byKey.size).toBe(ops.length);
    for (const [key, op] of ops) {
      const req = byKey.get(key);
      expect(req, key).toBeDefined();
      expect(req!.url.raw.startsWith('{{baseUrl}}/'), key).toBe(true);
      const wanted = op.security?.length === 0 ? undefined : key.includes('/api/backoffice/') ? '{{staffToken}}' : '{{apiKey}}';
      expect(req!.auth.bearer?.[0]?.value, key).toBe(wanted);
    }
  });

  it('points the local-staging environment at http://127.0.0.1:4610 with an apiKey to fill in', () => {
    const env = JSON.parse(committed(ENVIRONMENT_FILE)) as { values: Array<{ key: string; value: string; type: string }> };
    expect(env.values).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ key: 'baseUrl', value: 'http://127.0.0.1:4610' }),
        expect.objectContaining({ key: 'apiKey', value: '', type: 'secret' }),
      ]),
    );
  });

  it('sends a working request: "Create a checkout session" as imported, with the variables filled in', async () => {
    const m = await t.merchant();
    const req = requests().find((r) => r.method === 'POST' && r.url.raw === '{{baseUrl}}/api/v1/sessions')!;
    const headers = Object.fromEntries(req.header.map((h) => [h.key.toLowerCase(), h.value]));
    const res = await t.app.inject({
      method: req.method as 'POST',
      url: req.url.raw.replace('{{baseUrl}}', ''),
      headers: { ...headers, authorization: `Bearer ${req.auth.bearer![0]!.value.replace('{{apiKey}}', m.api_key)}` },
      payload: req.body!.raw,
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ status: 'open', amount_minor: 18500, invoice_ref: 'INV-2026-0042' });
  });
});
