import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedIntegration } from '../../server/modules/integrations/integrations.service';
import { createTestApp, type TestContext } from '../support/app';
import { call, errorCode, staff, type Staff } from '../support/backoffice';
import { uniqueInvoice } from '../support/checkout';
import { post } from '../support/http';

// Hostile text: U+0000 cannot be stored in PostgreSQL text (22021), so before the guard it was a
// 500 there; on both engines it is now a 400 naming the field, and nothing is written.
let t: TestContext;
let m: CreatedIntegration;
let finance: Staff;

beforeAll(async () => {
  t = await createTestApp();
  m = await t.merchant('Nul Guard Ltd');
  finance = await staff(t, 'finance', { merchantId: m.merchant_id });
});
afterAll(async () => t.close());

const message = (body: string) => (JSON.parse(body) as { error: { message: string } }).error.message;

describe('a NUL character in any text is a 400 naming the field', () => {
  it('in a JSON body field: 400 naming customer.name, and no session is written', async () => {
    const ref = uniqueInvoice('NUL');
    const res = await post(t.app, '/api/v1/sessions', { amount_minor: 500, invoice_ref: ref, customer: { name: 'Ama\u0000 Mensah' } }, { key: m.api_key });
    expect(res.statusCode, res.body).toBe(400);
    expect(errorCode(res)).toBe('INVALID_ARGUMENT');
    expect(message(res.body)).toMatch(/^customer\.name: must not contain a NUL/);
    const stored = await t.database.db.selectFrom('checkout_sessions').select('id').where('invoice_ref', '=', ref).execute();
    expect(stored).toEqual([]);
  });

  it('in a metadata key and in an array element: named by their place', async () => {
    const key = await post(t.app, '/api/v1/sessions', { amount_minor: 500, invoice_ref: uniqueInvoice('NUL'), metadata: { ['a\u0000b']: 'x' } }, { key: m.api_key });
    expect(key.statusCode).toBe(400);
    expect(message(key.body)).toMatch(/^metadata \(a key\): must not contain a NUL/);
    const line = await post(t.app, '/api/v1/invoice-lines', { invoice_ref: uniqueInvoice('NUL'), lines: [{ code: 'W\u0000', amount_minor: 1 }] }, { key: m.api_key });
    expect(line.statusCode).toBe(400);
    expect(message(line.body)).toMatch(/^lines\[0\]\.code: must not contain a NUL/);
  });

  it('in a form-encoded body, a query string and a path: 400, never a 5xx', async () => {
    const form = await t.app.inject({
      method: 'POST',
      url: '/api/v1/sessions',
      headers: { authorization: `Bearer ${m.api_key}`, 'content-type': 'application/x-www-form-urlencoded' },
      payload: `amount_minor=500&invoice_ref=${uniqueInvoice('NUL')}&customer[name]=A%00B`,
    });
    expect(form.statusCode, form.body).toBe(400);
    expect(message(form.body)).toMatch(/^customer\.name: /);
    const search = await call(t, finance, 'GET', '/sessions?q=ab%00cd');
    expect(search.statusCode, search.body).toBe(400);
    expect(message(search.body)).toMatch(/^q: must not contain a NUL/);
    const path = await t.app.inject({ method: 'GET', url: '/api/v1/checkout/sessions/cs_test_%00abc/quote' });
    expect(path.statusCode).toBeLessThan(500);
    expect([400, 404]).toContain(path.statusCode);
  });
});

describe('a forged amount cursor is a 400 naming cursor', () => {
  it.each([1.5, 1e308 * 10, -0.5])('amount %s', async (amount) => {
    const forged = Buffer.from(JSON.stringify(['amount_minor', 'asc', amount, 'cs_test_x'])).toString('base64url');
    const res = await call(t, finance, 'GET', `/sessions?sort=amount_minor&dir=asc&cursor=${forged}`);
    expect(res.statusCode, res.body).toBe(400);
    expect(message(res.body)).toMatch(/^cursor: /);
  });
});

describe('a lone surrogate in any text is a 400 naming the field, never stored altered', () => {
  it('in a JSON body field and a metadata key: 400 naming them, and no session is written', async () => {
    const ref = uniqueInvoice('SUR');
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/sessions',
      headers: { authorization: `Bearer ${m.api_key}`, 'content-type': 'application/json' },
      payload: `{"amount_minor":500,"invoice_ref":"${ref}","customer":{"name":"SUR\\ud800"}}`,
    });
    expect(res.statusCode, res.body).toBe(400);
    expect(errorCode(res)).toBe('INVALID_ARGUMENT');
    expect(message(res.body)).toMatch(/^customer\.name: must be valid Unicode text/);
    expect(await t.database.db.selectFrom('checkout_sessions').select('id').where('invoice_ref', '=', ref).execute()).toEqual([]);
    const key = await post(t.app, '/api/v1/sessions', { amount_minor: 500, invoice_ref: uniqueInvoice('SUR'), metadata: { ['k\udc00']: 'x' } }, { key: m.api_key });
    expect(message(key.body)).toMatch(/^metadata \(a key\): must be valid Unicode text/);
    // A well-formed pair (an emoji) is text like any other.
    const ok = await post(t.app, '/api/v1/sessions', { amount_minor: 500, invoice_ref: uniqueInvoice('SUR'), customer: { name: 'Ama \ud83d\ude00' } }, { key: m.api_key });
    expect(ok.statusCode, ok.body).toBe(201);
  });
});
