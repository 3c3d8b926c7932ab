import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../support/app';
import { get, post } from '../support/http';
import { CHECKOUT, expectError, openSession, sessionUrl, setAllowedRails, setFeeRule, startMomo, uniqueInvoice } from '../support/checkout';
import type { CreatedIntegration } from '../../server/modules/integrations/integrations.service';

describe('GET /api/v1/checkout/options', () => {
  let t: TestContext;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t.close());

  it('lists every rail, the branch rail, the Mobile Money networks and the seeded Ghanaian banks with their branches', async () => {
    const res = await get(t.app, `${CHECKOUT}/options`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const o = res.json();
    expect(o.payment_methods.map((p: { value: string }) => p.value)).toEqual(['momo', 'card', 'bank_transfer', 'cash']);
    for (const p of o.payment_methods) expect(p.label).toEqual(expect.any(String));
    expect(o.branch_payment_methods).toEqual([{ value: 'cash', label: expect.any(String) }]);
    // Every country's networks, Ghana's first; a session names the countries (and so the networks) it takes.
    expect(o.momo_operators.map((p: { value: string }) => p.value)).toEqual(['mtn', 'telecel', 'airteltigo', 'orange', 'moov', 'wave', 'free', 'mpesa', 'airtel']);

    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
    expect(o.banks.map((b: { code: string }) => b.code).sort()).toEqual(['ABSA', 'CAL', 'ECO', 'FBL', 'GCB', 'SBG']);
    const gcb = o.banks.find((b: { code: string }) => b.code === 'GCB');
    expect(gcb).toMatchObject({ id: expect.stringMatching(uuid), name: 'GCB Bank' });
    expect(gcb.branches).toHaveLength(4);
    expect(gcb.branches).toContainEqual({ id: expect.stringMatching(uuid), name: 'High Street, Accra', code: 'GCB-ACC-HS' });
    for (const b of o.banks) {
      expect(Object.keys(b).sort()).toEqual(['branches', 'code', 'id', 'name']);
      expect(b.branches.length).toBeGreaterThan(0);
      for (const br of b.branches) expect(Object.keys(br).sort()).toEqual(['code', 'id', 'name']);
    }
  });

  it('leaves out inactive banks and inactive branches', async () => {
    const db = t.database.db;
    await db.updateTable('banks').set({ active: 0 }).where('code', '=', 'CAL').execute();
    await db.updateTable('branches').set({ active: 0 }).where('code', '=', 'GCB-TML-MN').execute();
    try {
      const o = (await get(t.app, `${CHECKOUT}/options`)).json();
      expect(o.banks.map((b: { code: string }) => b.code)).not.toContain('CAL');
      const gcb = o.banks.find((b: { code: string }) => b.code === 'GCB');
      expect(gcb.branches.map((b: { code: string }) => b.code)).not.toContain('GCB-TML-MN');
      expect(gcb.branches).toHaveLength(3);
    } finally {
      await db.updateTable('banks').set({ active: 1 }).where('code', '=', 'CAL').execute();
      await db.updateTable('branches').set({ active: 1 }).where('code', '=', 'GCB-TML-MN').execute();
    }
  });
});

describe('GET /api/v1/checkout/sessions/{reference}', () => {
  let t: TestContext;
  let m: CreatedIntegration;
  beforeAll(async () => {
    t = await createTestApp();
    m = await t.merchant('Accra Water Company');
  });
  afterAll(async () => t.close());

  it('shows the payer view: merchant name, amounts, line items from the invoice lines and the return link', async () => {
    const invoice = uniqueInvoice('WATER');
    expect((await post(t.app, '/api/v1/revenue-lines', { lines: [{ code: 'WATER', name: 'Water supply' }, { code: 'SEWER', name: 'Sewerage' }] }, { key: m.api_key })).statusCode).toBe(200);
    const lines = await post(
      t.app,
      '/api/v1/invoice-lines',
      { invoice_ref: invoice, currency: 'GHS', lines: [{ code: 'WATER', name: 'Water, May', amount_minor: 7_500 }, { code: 'SEWER', name: 'Sewerage, May', amount_minor: 2_500 }] },
      { key: m.api_key },
    );
    expect(lines.statusCode, lines.body).toBe(200);
    const s = await openSession(t, m, {
      amount_minor: 10_000,
      invoice_ref: invoice,
      description: 'May bill',
      customer: { name: 'Kofi Boateng', email: 'kofi@example.com' },
      callback_url: 'https://water.example.com/return?bill=5',
      metadata: { secret_internal: 'never shown to the payer' },
    });
    const res = await get(t.app, sessionUrl(s.id));
    expect(res.statusCode).toBe(200);
    const p = res.json();
    expect(p).toEqual({
      id: s.id,
      merchant_name: 'Accra Water Company',
      status: 'open',
      amount_minor: 10_000,
      currency: 'GHS',
      invoice_ref: invoice,
      description: 'May bill',
      customer_name: 'Kofi Boateng',
      allowed_rails: ['momo', 'card', 'bank_transfer', 'cash'],
      expires_at: s.expires_at,
      return_to_merchant_url: 'https://water.example.com/return?bill=5',
      card_collection_mode: 'test_simulation',
      line_items: expect.any(Array),
      mode: 'test',
      momo_countries: ['GH'],
      paid_rail: null,
      pending_attempt: null,
      cash_slip: null,
      cash_rejection: null,
      payment: null,
    });
    expect(p.line_items).toHaveLength(2);
    expect(p.line_items).toEqual(
      expect.arrayContaining([
        { code: 'WATER', name: 'Water, May', amount_minor: 7_500, currency: 'GHS' },
        { code: 'SEWER', name: 'Sewerage, May', amount_minor: 2_500, currency: 'GHS' },
      ]),
    );
    // Nothing only the merchant should see: email, metadata, keys.
    expect(res.body).not.toContain('kofi@example.com');
    expect(res.body).not.toContain('secret_internal');
    expect(res.body).not.toContain(m.api_key);
  });

  it('uses empty strings for absent optional text, leaves out return_to_merchant_url without a callback_url, and lists only the allowed rails', async () => {
    const m2 = await t.merchant();
    await setAllowedRails(t, m2.integration_id, ['cash', 'momo']);
    const s = await openSession(t, m2);
    const p = (await get(t.app, sessionUrl(s.id))).json();
    expect(p).toMatchObject({ description: '', customer_name: '', line_items: [], allowed_rails: ['momo', 'cash'] });
    // A URL field is a URL or absent (`return_to_merchant_url` is a URL string), never "".
    expect(p).not.toHaveProperty('return_to_merchant_url');
  });

  it('shows the pending Mobile Money attempt (last four digits only) so a reloaded page can resume it', async () => {
    const s = await openSession(t, m);
    const a = await startMomo(t, s.id, '0247771234', 'telecel');
    const res = await get(t.app, sessionUrl(s.id));
    const p = res.json();
    expect(p.status).toBe('pending');
    expect(p.pending_attempt).toEqual({
      attempt_reference: a.attempt_reference,
      rail: 'momo',
      status: 'pending',
      instructions: { mode: 'mobile_money_prompt', rail: 'momo', amount_minor: a.amount_charged_minor, currency: 'GHS', operator: 'telecel', phone_last4: '1234' },
    });
    expect(res.body).not.toContain('247771234');
  });

  it('answers 404 NOT_FOUND for an unknown session, however long its reference', async () => {
    expectError(await get(t.app, sessionUrl('cs_test_nope')), 404, 'NOT_FOUND');
    expectError(await get(t.app, `${sessionUrl('cs_test_nope')}/quote`), 404, 'NOT_FOUND');
    // Longer than any reference (80) and than the router's parameter limit (100): no such session either.
    for (const length of [81, 101, 300]) expectError(await get(t.app, sessionUrl('x'.repeat(length))), 404, 'NOT_FOUND');
  });
});

describe('GET /api/v1/checkout/sessions/{reference}/quote', () => {
  let t: TestContext;
  let m: CreatedIntegration;
  beforeAll(async () => {
    t = await createTestApp();
    m = await t.merchant();
  });
  afterAll(async () => t.close());

  it('prices each rail with the default fee rules (payer-borne raise the total, merchant-borne do not)', async () => {
    const s = await openSession(t, m, { amount_minor: 12_345 });
    const res = await get(t.app, `${sessionUrl(s.id)}/quote`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      id: s.id,
      status: 'open',
      base_minor: 12_345,
      currency: 'GHS',
      expires_at: s.expires_at,
      allowed_rails: ['momo', 'card', 'bank_transfer', 'cash'],
      surcharges: {
        // 1 % of 123.45 = 1.2345 → 1.23 (half-up on the minor unit)
        momo: { bearer: 'payer', fee_minor: 123, surcharge_minor: 123, total_minor: 12_468, currency: 'GHS' },
        // 1.95 % = 240.7275 → 241, borne by the merchant: the payer pays the base
        card: { bearer: 'merchant', fee_minor: 241, surcharge_minor: 0, total_minor: 12_345, currency: 'GHS' },
        bank_transfer: { bearer: 'payer', fee_minor: 100, surcharge_minor: 100, total_minor: 12_445, currency: 'GHS' },
        cash: { bearer: 'payer', fee_minor: 200, surcharge_minor: 200, total_minor: 12_545, currency: 'GHS' },
      },
    });
  });

  it('caps the Mobile Money fee at 20.00 and rounds exactly half up', async () => {
    const big = await openSession(t, m, { amount_minor: 5_000_000 }); // 1 % = 500.00 → capped at 20.00
    expect((await get(t.app, `${sessionUrl(big.id)}/quote`)).json().surcharges.momo).toMatchObject({ fee_minor: 2_000, total_minor: 5_002_000 });
    const half = await openSession(t, m, { amount_minor: 150 }); // 1 % = 1.5 → 2
    expect((await get(t.app, `${sessionUrl(half.id)}/quote`)).json().surcharges.momo).toMatchObject({ fee_minor: 2, total_minor: 152 });
    const below = await openSession(t, m, { amount_minor: 149 }); // 1.49 → 1
    expect((await get(t.app, `${sessionUrl(below.id)}/quote`)).json().surcharges.momo).toMatchObject({ fee_minor: 1, total_minor: 150 });
  });

  it("applies the integration's own fee rules, payer or merchant bearer, and only for allowed rails", async () => {
    const m2 = await t.merchant();
    await setFeeRule(t, m2.integration_id, 'momo', { percent_bps: 250, fixed_minor: 50, cap_minor: null, bearer: 'merchant' });
    await setFeeRule(t, m2.integration_id, 'card', { percent_bps: 300, fixed_minor: 25, cap_minor: 400, bearer: 'payer' });
    await setAllowedRails(t, m2.integration_id, ['momo', 'card']);
    const s = await openSession(t, m2, { amount_minor: 20_000 });
    const q = (await get(t.app, `${sessionUrl(s.id)}/quote`)).json();
    expect(q.allowed_rails).toEqual(['momo', 'card']);
    expect(Object.keys(q.surcharges).sort()).toEqual(['card', 'momo']);
    // 2.5 % of 200.00 + 0.50 = 5.50, merchant-borne
    expect(q.surcharges.momo).toEqual({ bearer: 'merchant', fee_minor: 550, surcharge_minor: 0, total_minor: 20_000, currency: 'GHS' });
    // 3 % + 0.25 = 6.25, capped at 4.00, payer-borne
    expect(q.surcharges.card).toEqual({ bearer: 'payer', fee_minor: 400, surcharge_minor: 400, total_minor: 20_400, currency: 'GHS' });
  });

  it('answers 409 SESSION_NOT_PAYABLE when the session is not open', async () => {
    const s = await openSession(t, m);
    await startMomo(t, s.id); // session → pending
    const err = expectError(await get(t.app, `${sessionUrl(s.id)}/quote`), 409, 'SESSION_NOT_PAYABLE');
    expect(err.message).toMatch(/pending/);
  });
});

describe('hosted checkout rate limit (per client IP)', () => {
  let t: TestContext;
  let m: CreatedIntegration;
  beforeAll(async () => {
    t = await createTestApp({ rateLimitPerMin: 3 });
    m = await t.merchant();
  });
  afterAll(async () => t.close());

  it('answers 429 RATE_LIMITED with retry_after_seconds once an IP exceeds the limit; the merchant key has its own budget', async () => {
    const s = await openSession(t, m);
    const fromIp = (url: string, ip: string) => t.app.inject({ method: 'GET', url, remoteAddress: ip });
    for (let i = 0; i < 3; i++) expect((await fromIp(sessionUrl(s.id), '10.0.0.7')).statusCode).toBe(200);
    const limited = await fromIp(`${sessionUrl(s.id)}/quote`, '10.0.0.7');
    const err = expectError(limited, 429, 'RATE_LIMITED');
    expect(err.retry_after_seconds).toBeGreaterThanOrEqual(1);
    expect(err.retry_after_seconds).toBeLessThanOrEqual(60);
    // Another payer is not affected.
    expect((await fromIp(sessionUrl(s.id), '10.0.0.8')).statusCode).toBe(200);
    expect((await get(t.app, `/api/v1/sessions/${s.id}`, m.api_key)).statusCode).toBe(200);
  });
});
