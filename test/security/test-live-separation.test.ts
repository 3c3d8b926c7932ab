import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomIds } from '../../server/lib/ids';
import { newApiKey, type CreatedIntegration } from '../../server/modules/integrations/integrations.service';
import { RAILS } from '../../shared/schemas/common';
import { createTestApp, type TestContext } from '../support/app';
import { get, post } from '../support/http';
import { payByCard, quoteTotal, sessionUrl, uniqueInvoice } from '../support/checkout';
import { call, staff } from '../support/backoffice';
import { foldInvoiceSummaries } from '../../server/jobs/invoice-summary-fold';
import { rebuildInvoiceSummaries } from '../../server/domain/invoice-summary';

// Live keys cannot be created yet, so a live integration is inserted directly,
// as a future `--live` would. Each finding of the issue is one test.
let t: TestContext;
let testSide: CreatedIntegration;
let liveKey: string;

async function addLiveIntegration(merchantId: string): Promise<string> {
  const now = t.clock.now().toISOString();
  const integrationId = randomIds.uuid();
  await t.database.db
    .insertInto('integrations')
    .values({ id: integrationId, merchant_id: merchantId, name: 'live', mode: 'live', allowed_rails: JSON.stringify(RAILS), card_collection_mode: 'direct_card', created_at: now, disabled_at: null })
    .execute();
  const key = newApiKey(randomIds, 'live');
  await t.database.db
    .insertInto('api_keys')
    .values({ id: randomIds.uuid(), integration_id: integrationId, prefix: key.prefix, key_hash: key.hash, mode: 'live', created_at: now, last_used_at: null, revoked_at: null })
    .execute();
  return key.key;
}

const liveSync = (lines: unknown[], deactivate = false) => post(t.app, '/api/v1/revenue-lines', { lines, deactivate_missing: deactivate }, { key: liveKey });

beforeAll(async () => {
  t = await createTestApp();
  testSide = await t.merchant('Both Modes Ltd');
  liveKey = await addLiveIntegration(testSide.merchant_id);
});
afterAll(async () => t.close());

describe('test and live data are separate', () => {
  it('a test key cannot read a live session, nor its customer data', async () => {
    const created = await post(t.app, '/api/v1/sessions', { amount_minor: 5000, invoice_ref: uniqueInvoice(), customer: { name: 'Kofi Live', email: 'kofi@example.com' }, metadata: { order: 'L1' } }, { key: liveKey });
    expect(created.statusCode, created.body).toBe(201);
    const id = (created.json() as { id: string }).id;
    expect(id).toMatch(/^cs_live_/);
    const asTest = await get(t.app, `/api/v1/sessions/${id}`, testSide.api_key);
    expect(asTest.statusCode).toBe(404);
    expect(asTest.body).not.toContain('Kofi');
    expect((await get(t.app, `/api/v1/sessions/${id}`, liveKey)).statusCode).toBe(200);
  });

  it('a test key cannot read live invoice lines, and the same invoice ref in test is another invoice', async () => {
    expect((await liveSync([{ code: 'WATER', name: 'Water (live)' }])).statusCode).toBe(200);
    const ref = uniqueInvoice('LIVE');
    const ingest = await post(t.app, '/api/v1/invoice-lines', { invoice_ref: ref, lines: [{ code: 'WATER', amount_minor: 700 }] }, { key: liveKey });
    expect(ingest.statusCode, ingest.body).toBe(200);
    expect((await get(t.app, `/api/v1/invoice-lines?invoice_ref=${ref}`, testSide.api_key)).statusCode).toBe(404);
    expect((await get(t.app, `/api/v1/invoice-lines?invoice_ref=${ref}`, liveKey)).statusCode).toBe(200);
    // A test key cannot bill against the live catalogue either.
    const testIngest = await post(t.app, '/api/v1/invoice-lines', { invoice_ref: ref, lines: [{ code: 'WATER', amount_minor: 1 }] }, { key: testSide.api_key });
    expect((testIngest.json() as { errors: Array<{ code: string }> }).errors[0]?.code).toBe('REVENUE_LINE_UNKNOWN');
  });

  it('a test-key sync with deactivate_missing leaves live revenue lines alone', async () => {
    expect((await liveSync([{ code: 'POWER', name: 'Power (live)' }])).statusCode).toBe(200);
    const sync = await post(t.app, '/api/v1/revenue-lines', { lines: [{ code: 'OTHER', name: 'Other' }], deactivate_missing: true }, { key: testSide.api_key });
    expect(sync.statusCode, sync.body).toBe(200);
    expect((sync.json() as { deactivated: number }).deactivated).toBe(0);
    const live = await get(t.app, '/api/v1/revenue-lines', liveKey);
    const codes = (live.json() as { lines: Array<{ code: string; active: boolean }> }).lines.filter((l) => l.active).map((l) => l.code);
    expect(codes).toContain('POWER');
    expect(codes).not.toContain('OTHER');
  });

  it('a live session is never paid through a sandbox provider: no sandbox code, no test card', async () => {
    const created = await post(t.app, '/api/v1/sessions', { amount_minor: 5000, invoice_ref: uniqueInvoice() }, { key: liveKey });
    const id = (created.json() as { id: string }).id;
    const quote = await get(t.app, `${sessionUrl(id)}/quote`);
    expect((quote.json() as { allowed_rails: string[] }).allowed_rails).toEqual(['cash']);
    const momo = await post(t.app, `${sessionUrl(id)}/provider-attempts`, { rail: 'momo', amount_minor: 5000, operator: 'mtn', phone: '0241234567' });
    expect(momo.statusCode).toBe(400);
    expect((momo.json() as { error: { code: string; message: string } }).error).toMatchObject({ code: 'RAIL_NOT_ALLOWED', message: expect.stringContaining('live provider') });
    const bank = await post(t.app, `${sessionUrl(id)}/provider-attempts`, { rail: 'bank_transfer', amount_minor: 5000 });
    expect((bank.json() as { error: { code: string } }).error.code).toBe('RAIL_NOT_ALLOWED');
    const card = await post(t.app, `${sessionUrl(id)}/card-payments`, { amount_minor: 5000, card_number: '4242424242424242', expiry_month: 12, expiry_year: 2099, cvc: '123' });
    expect((card.json() as { error: { code: string } }).error.code).toBe('RAIL_NOT_ALLOWED');
    expect((await get(t.app, `/api/v1/sessions/${id}`, liveKey)).json()).toMatchObject({ status: 'open' });
    // Cash is collected by staff, so a live payer can still pay.
    const total = await quoteTotal(t, id, 'cash');
    expect((await post(t.app, '/api/v1/checkout/cash-slips', { session_id: id, amount_minor: total })).statusCode).toBe(201);
  });

  it('test sessions still use the sandbox (the separation does not break test mode)', async () => {
    const created = await post(t.app, '/api/v1/sessions', { amount_minor: 5000, invoice_ref: uniqueInvoice() }, { key: testSide.api_key });
    const id = (created.json() as { id: string }).id;
    expect((await get(t.app, `${sessionUrl(id)}/quote`)).json()).toMatchObject({ allowed_rails: RAILS });
  });
});

describe('test money never counts on a live invoice in the back office', () => {
  it('a sandbox card payment on a test session of a live invoice leaves it unpaid; the payments CSV says which mode each payment was', async () => {
    expect((await liveSync([{ code: 'RATES', name: 'Rates (live)' }])).statusCode).toBe(200);
    const ref = uniqueInvoice('MIXED');
    expect((await post(t.app, '/api/v1/invoice-lines', { invoice_ref: ref, lines: [{ code: 'RATES', amount_minor: 9000 }] }, { key: liveKey })).statusCode).toBe(200);
    const created = await post(t.app, '/api/v1/sessions', { amount_minor: 9000, invoice_ref: ref }, { key: testSide.api_key });
    expect(created.statusCode, created.body).toBe(201);
    const id = (created.json() as { id: string }).id;
    expect(id).toMatch(/^cs_test_/);
    await payByCard(t, id, '4242424242424242');
    const finance = await staff(t, 'finance', { merchantId: testSide.merchant_id });
    const expected = { invoice_ref: ref, mode: 'live', billed_minor: 9000, paid_minor: 0, outstanding_minor: 9000, remitted: false };
    const detail = await call(t, finance, 'GET', `/invoices/${ref}`);
    expect(detail.statusCode, detail.body).toBe(200);
    expect(detail.json().invoice).toMatchObject(expected);
    const list = (await call(t, finance, 'GET', `/invoices?q=${ref}`)).json() as { invoices: Array<{ invoice_ref: string }> };
    expect(list.invoices.find((i) => i.invoice_ref === ref)).toMatchObject(expected);
    // Folded or rebuilt from the base tables, the summary says the same.
    await foldInvoiceSummaries(t.database.db);
    await rebuildInvoiceSummaries(t.database.db);
    expect((await call(t, finance, 'GET', `/invoices/${ref}`)).json().invoice).toMatchObject(expected);
    const day = 86_400_000;
    const [from, to] = [new Date(t.clock.now().getTime() - day).toISOString(), new Date(t.clock.now().getTime() + day).toISOString()];
    const csv = await call(t, finance, 'GET', `/reports/payments.csv?from=${from}&to=${to}`);
    expect(csv.statusCode, csv.body).toBe(200);
    const [header, ...rows] = csv.body.trim().split('\r\n');
    const mode = header!.split(',').indexOf('mode');
    expect(mode).toBeGreaterThan(0);
    const row = rows.find((r) => r.includes(id))!;
    expect(row.split(',')[mode]).toBe('test');
  });

  it('a test part-payment on a live invoice is no exception of the live invoice', async () => {
    const ref = uniqueInvoice('MIXED-PART');
    expect((await post(t.app, '/api/v1/invoice-lines', { invoice_ref: ref, lines: [{ code: 'RATES', amount_minor: 9000 }] }, { key: liveKey })).statusCode).toBe(200);
    const created = await post(t.app, '/api/v1/sessions', { amount_minor: 5000, invoice_ref: ref }, { key: testSide.api_key });
    await payByCard(t, (created.json() as { id: string }).id, '4242424242424242');
    const finance = await staff(t, 'finance', { merchantId: testSide.merchant_id });
    const list = (await call(t, finance, 'GET', '/exceptions?limit=200')).json() as { exceptions: Array<{ invoice_ref: string }> };
    expect(list.exceptions.filter((e) => e.invoice_ref === ref)).toEqual([]);
  });
});

describe('back-office lists keep the modes apart', () => {
  it('the sessions list filters by mode and says which mode each session is', async () => {
    const ref = uniqueInvoice('MODES');
    const live = ((await post(t.app, '/api/v1/sessions', { amount_minor: 1200, invoice_ref: ref }, { key: liveKey })).json() as { id: string }).id;
    const test = ((await post(t.app, '/api/v1/sessions', { amount_minor: 1200, invoice_ref: ref }, { key: testSide.api_key })).json() as { id: string }).id;
    const finance = await staff(t, 'finance', { merchantId: testSide.merchant_id });
    const list = async (mode: string) => {
      const res = await call(t, finance, 'GET', `/sessions?invoice_ref=${ref}${mode ? `&mode=${mode}` : ''}`);
      expect(res.statusCode, res.body).toBe(200);
      return (res.json() as { sessions: Array<{ id: string; mode: string }>; total: number }).sessions.map((s) => [s.id, s.mode]).sort();
    };
    expect(await list('')).toEqual([[live, 'live'], [test, 'test']].sort());
    expect(await list('all')).toEqual([[live, 'live'], [test, 'test']].sort());
    expect(await list('live')).toEqual([[live, 'live']]);
    expect(await list('test')).toEqual([[test, 'test']]);
    // Without any other filter too (the merchant's whole list), and the count follows the filter.
    const all = (await call(t, finance, 'GET', '/sessions?mode=test&limit=100')).json() as { sessions: Array<{ id: string }>; total: number };
    expect(all.sessions.length).toBeGreaterThan(0);
    expect(all.sessions.every((s) => s.id.startsWith('cs_test_'))).toBe(true);
    expect(all.total).toBe(all.sessions.length);
    const bad = await call(t, finance, 'GET', '/sessions?mode=sandbox');
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('mode');
  });

  it('the exceptions list and its CSV carry the mode (last column)', async () => {
    expect((await post(t.app, '/api/v1/revenue-lines', { lines: [{ code: 'RATES', name: 'Rates (test)' }] }, { key: testSide.api_key })).statusCode).toBe(200);
    const ref = uniqueInvoice('TEST-PART');
    expect((await post(t.app, '/api/v1/invoice-lines', { invoice_ref: ref, lines: [{ code: 'RATES', amount_minor: 9000 }] }, { key: testSide.api_key })).statusCode).toBe(200);
    const created = await post(t.app, '/api/v1/sessions', { amount_minor: 4000, invoice_ref: ref }, { key: testSide.api_key });
    const id = (created.json() as { id: string }).id;
    expect((await payByCard(t, id, '4242424242424242')).statusCode).toBe(201);
    const finance = await staff(t, 'finance', { merchantId: testSide.merchant_id });
    const list = (await call(t, finance, 'GET', '/exceptions?limit=200')).json() as { exceptions: Array<{ invoice_ref: string; kind: string; mode: string }> };
    expect(list.exceptions.filter((e) => e.invoice_ref === ref)).toEqual([expect.objectContaining({ kind: 'amount_differs', mode: 'test' })]);
    const csv = await call(t, finance, 'GET', '/reports/exceptions.csv');
    expect(csv.statusCode, csv.body).toBe(200);
    const [header, ...rows] = csv.body.trim().split('\r\n');
    const columns = header!.split(',');
    expect(columns.slice(0, 3)).toEqual(['detected_at', 'kind', 'invoice_ref']);
    expect(columns.at(-1)).toBe('mode');
    const row = rows.find((r) => r.includes(id))!;
    expect(row.split(',').at(-1)).toBe('test');
  });

  it('the invoice list sorts by billed amount and line count as each invoice shows them (its mode only)', async () => {
    const codes = ['SA', 'SB', 'SC'].map((code) => ({ code, name: code }));
    expect((await liveSync(codes)).statusCode).toBe(200);
    expect((await post(t.app, '/api/v1/revenue-lines', { lines: codes }, { key: testSide.api_key })).statusCode).toBe(200);
    const tag = `SORT${Date.now()}`;
    const [mixed, plain] = [`${tag}-MIXED`, `${tag}-PLAIN`];
    // Mixed: live 1 line of 1,000, plus test lines on the same ref (3 of 50,000); shown as live, 1 line, 1,000.
    expect((await post(t.app, '/api/v1/invoice-lines', { invoice_ref: mixed, lines: [{ code: 'SA', amount_minor: 1000 }] }, { key: liveKey })).statusCode).toBe(200);
    const testLines = await post(t.app, '/api/v1/invoice-lines', { invoice_ref: mixed, lines: codes.map(({ code }) => ({ code, amount_minor: 50_000 })) }, { key: testSide.api_key });
    expect(testLines.statusCode, testLines.body).toBe(200);
    // Plain: live 2 lines, 5,000 in all.
    expect((await post(t.app, '/api/v1/invoice-lines', { invoice_ref: plain, lines: [{ code: 'SA', amount_minor: 2000 }, { code: 'SB', amount_minor: 3000 }] }, { key: liveKey })).statusCode).toBe(200);
    const finance = await staff(t, 'finance', { merchantId: testSide.merchant_id });
    for (const sort of ['billed_minor', 'line_count']) {
      const page = (await call(t, finance, 'GET', `/invoices?q=${tag}&sort=${sort}&dir=asc`)).json() as { invoices: Array<{ invoice_ref: string; billed_minor: number; line_count: number }> };
      expect(page.invoices.map((i) => [i.invoice_ref, i.line_count, i.billed_minor]), sort).toEqual([
        [mixed, 1, 1000],
        [plain, 2, 5000],
      ]);
      // Paged by cursor, the same order.
      const first = (await call(t, finance, 'GET', `/invoices?q=${tag}&sort=${sort}&dir=desc&limit=1`)).json() as { invoices: Array<{ invoice_ref: string }>; next_cursor: string };
      expect(first.invoices.map((i) => i.invoice_ref)).toEqual([plain]);
      const second = (await call(t, finance, 'GET', `/invoices?q=${tag}&sort=${sort}&dir=desc&limit=1&cursor=${first.next_cursor}`)).json() as { invoices: Array<{ invoice_ref: string }> };
      expect(second.invoices.map((i) => i.invoice_ref)).toEqual([mixed]);
    }
  });
});
