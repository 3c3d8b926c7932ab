import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { compiledSerializerCompiler } from '../../server/http/serializer';
import { CheckoutSessionResponse, InvoiceLineIngestResponse } from '../../shared/schemas/merchant';
import { ProviderPaymentInitiationResponse, PublicCheckoutQuote } from '../../shared/schemas/checkout';
import type { CreatedIntegration } from '../../server/modules/integrations/integrations.service';
import { createTestApp, type TestContext } from '../support/app';
import { get, post } from '../support/http';
import { sessionUrl, uniqueInvoice } from '../support/checkout';

/**
 * Responses are written by fast-json-stringify from JSON Schemas built once from the zod schemas
 * (server/http/serializer.ts), not by zod. These check that what the hot routes answer is still
 * exactly what zod would have written (valid, nothing extra, same bytes), with the production
 * serializer (the per-response zod check that tests otherwise run is switched off here).
 */
describe('compiled response serialisation (production mode)', () => {
  let t: TestContext;
  let m: CreatedIntegration;
  beforeAll(async () => {
    const before = process.env.PAYDESK_VERIFY_RESPONSES;
    process.env.PAYDESK_VERIFY_RESPONSES = '0';
    try {
      t = await createTestApp();
    } finally {
      if (before === undefined) delete process.env.PAYDESK_VERIFY_RESPONSES;
      else process.env.PAYDESK_VERIFY_RESPONSES = before;
    }
    m = await t.merchant('Serializer Merchant');
  });
  afterAll(async () => t.close());

  /** Valid for the zod schema, and byte-identical to zod's own serialisation (key order included). */
  const expectZodBytes = (schema: z.ZodType, text: string) => {
    const parsed = schema.parse(JSON.parse(text));
    expect(JSON.stringify(parsed)).toBe(text);
  };

  it('session create, session get, quote, Mobile Money start and invoice-line ingest answer what zod would write', async () => {
    await post(t.app, '/api/v1/revenue-lines', { lines: [{ code: 'WATER', name: 'Water' }] }, { key: m.api_key });
    const invoice = uniqueInvoice('SER');
    const ingest = await post(t.app, '/api/v1/invoice-lines', { invoice_ref: invoice, lines: [{ code: 'WATER', amount_minor: 300 }] }, { key: m.api_key });
    expect(ingest.statusCode, ingest.body).toBe(200);
    expectZodBytes(InvoiceLineIngestResponse, ingest.body);

    const body = {
      amount_minor: 300,
      invoice_ref: invoice,
      description: 'Water, March',
      customer: { name: 'Ama', email: 'ama@example.com' },
      callback_url: 'https://shop.example.com/back',
      metadata: { order: 'A-1', nested: { n: 1, list: [1, 'two', null] } },
    };
    const created = await post(t.app, '/api/v1/sessions', body, { key: m.api_key });
    expect(created.statusCode, created.body).toBe(201);
    expectZodBytes(CheckoutSessionResponse, created.body);
    const id = (created.json() as { id: string }).id;

    const got = await get(t.app, `/api/v1/sessions/${id}`, m.api_key);
    expect(got.statusCode).toBe(200);
    expectZodBytes(CheckoutSessionResponse, got.body);
    expect(got.body).toBe(created.body);

    const quote = await get(t.app, `${sessionUrl(id)}/quote`);
    expect(quote.statusCode).toBe(200);
    expectZodBytes(PublicCheckoutQuote, quote.body);

    const total = (quote.json() as { surcharges: { momo: { total_minor: number } } }).surcharges.momo.total_minor;
    const attempt = await post(t.app, `${sessionUrl(id)}/provider-attempts`, { rail: 'momo', amount_minor: total, operator: 'mtn', phone: '0241234567' });
    expect(attempt.statusCode, attempt.body).toBe(201);
    expectZodBytes(ProviderPaymentInitiationResponse, attempt.body);
  });

  it('the test-mode check throws when a response does not match its zod schema, naming the route', () => {
    const schema = z.object({ id: z.string(), at: z.iso.datetime(), note: z.string().nullable(), n: z.number().int().optional() });
    const serialize = compiledSerializerCompiler({ verify: true })({ schema, method: 'GET', url: '/x', httpStatus: '200' } as never);
    expect(serialize({ id: 'a', at: '2026-01-01T00:00:00.000Z', note: null, n: 2 })).toBe('{"id":"a","at":"2026-01-01T00:00:00.000Z","note":null,"n":2}');
    expect(serialize({ id: 'a', at: '2026-01-01T00:00:00.000Z', note: 'x', extra: 1 })).toBe('{"id":"a","at":"2026-01-01T00:00:00.000Z","note":"x"}');
    // Values fast-json-stringify alone would coerce or write anyway.
    expect(() => serialize({ id: 5, at: '2026-01-01T00:00:00.000Z', note: null })).toThrow();
    expect(() => serialize({ id: 'a', at: 'yesterday', note: null })).toThrow();
    expect(() => serialize({ id: 'a', at: '2026-01-01T00:00:00.000Z' })).toThrow();
    const unchecked = compiledSerializerCompiler({ verify: false })({ schema, method: 'GET', url: '/x', httpStatus: '200' } as never);
    expect(unchecked({ id: 'a', at: '2026-01-01T00:00:00.000Z', note: null })).toBe('{"id":"a","at":"2026-01-01T00:00:00.000Z","note":null}');
  });
});
