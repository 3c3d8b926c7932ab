import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestContext } from '../support/app';

describe('merchant API smoke', () => {
  let t: TestContext;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t.close());

  it('creates and looks up a session', async () => {
    const m = await t.merchant();
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/v1/sessions',
      headers: bearer(m.api_key),
      payload: { amount_minor: 2500, invoice_ref: 'INV-SMOKE' },
    });
    expect(created.statusCode).toBe(201);
    const body = created.json();
    expect(body).toMatchObject({ status: 'open', amount_minor: 2500, currency: 'GHS', invoice_ref: 'INV-SMOKE' });
    expect(body.checkout_url).toBe(`http://paydesk.test/checkout/${body.id}`);
    const got = await t.app.inject({ method: 'GET', url: `/api/v1/sessions/${body.id}`, headers: bearer(m.api_key) });
    expect(got.statusCode).toBe(200);
    expect(got.json()).toEqual(body);
  });
});
