import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../support/app';
import { openSession, payByCard, uniqueInvoice } from '../support/checkout';
import { call, errorCode, sessionStatus, sessionWithSlip, staff, type Staff } from '../support/backoffice';
import { rebuildInvoiceSummaries } from '../../server/domain/invoice-summary';
import type { CreatedIntegration } from '../../server/modules/integrations/integrations.service';
import type { Overview } from '../../shared/schemas/overview';

/** The finance overview: gross, payer and merchant fees, net, counts by status and per-day collections by rail. */
describe('finance overview', () => {
  let t: TestContext;
  let m: CreatedIntegration;
  let other: CreatedIntegration;
  let finance: Staff;
  let admin: Staff;
  let teller: Staff;
  let sup: Staff;
  beforeAll(async () => {
    t = await createTestApp();
    m = await t.merchant('Accra Water');
    other = await t.merchant('Other Co');
    finance = await staff(t, 'finance', { merchantId: m.merchant_id });
    admin = await staff(t, 'admin');
    const branchId = (await t.database.db.selectFrom('branches').select('id').executeTakeFirstOrThrow()).id;
    teller = await staff(t, 'teller', { branchId });
    sup = await staff(t, 'supervisor');
  });
  afterAll(async () => t.close());

  const overview = async (who: Staff, query = '') => {
    const res = await call(t, who, 'GET', `/overview${query}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as Overview;
  };

  it('adds up a card payment (merchant-borne fee), a cash payment (payer-borne fee) and an expiry, per rail and per day', async () => {
    const today = t.clock.now().toISOString().slice(0, 10);
    const empty = await overview(finance);
    expect(empty).toMatchObject({ currency: 'GHS', to: today, totals: { gross_minor: 0, net_minor: 0, payments: 0 }, exceptions_open: 0, held_deliveries: 0 });
    expect(empty.days).toHaveLength(30);

    const card = await openSession(t, m, { amount_minor: 18_500, invoice_ref: uniqueInvoice() });
    expect((await payByCard(t, card.id, '4242424242424242')).json().session_status).toBe('success');

    const slip = await sessionWithSlip(t, m, 10_000);
    const rec = await call(t, teller, 'POST', `/cash-slips/${slip.slip_token}/deposits`, { amount_minor: slip.amount_minor });
    expect(rec.statusCode, rec.body).toBe(201);
    const approve = await call(t, sup, 'POST', `/deposits/${(rec.json() as { deposit: { id: string } }).deposit.id}/approve`);
    expect(approve.statusCode, approve.body).toBe(200);

    const soon = await openSession(t, m, { amount_minor: 500, invoice_ref: uniqueInvoice(), expires_in_seconds: 60 });
    await openSession(t, other, { amount_minor: 99_999, invoice_ref: uniqueInvoice() }); // another merchant's: never counted
    t.clock.advanceSeconds(120);
    expect(await sessionStatus(t, m, soon.id)).toBe('expired'); // the lookup expires it

    const o = await overview(finance);
    // card: 18 500 charged, 1.95 % = 361 paid by the merchant; cash: 10 000 + 200 handling paid by the payer.
    expect(o.totals).toEqual({ gross_minor: 18_500 + 10_200, payer_fee_minor: 200, merchant_fee_minor: 361, net_minor: 18_500 - 361 + 10_000, payments: 2 });
    expect(o.rails.find((r) => r.rail === 'card')).toEqual({ rail: 'card', gross_minor: 18_500, payer_fee_minor: 0, merchant_fee_minor: 361, net_minor: 18_139, payments: 1 });
    expect(o.rails.find((r) => r.rail === 'cash')).toEqual({ rail: 'cash', gross_minor: 10_200, payer_fee_minor: 200, merchant_fee_minor: 0, net_minor: 10_000, payments: 1 });
    expect(o.counts).toEqual({ created: 3, success: 2, failed: 0, expired: 1 });
    const todays = o.days.find((d) => d.day === today)!;
    expect(todays).toEqual({ day: today, created: 3, success: 2, failed: 0, expired: 1, collected_minor: { momo: 0, card: 18_500, bank_transfer: 0, cash: 10_200 } });

    // The payments CSV names who paid each fee and what reaches the merchant.
    const day = (n: number) => new Date(t.clock.now().getTime() + n * 86_400_000).toISOString();
    const csv = await call(t, finance, 'GET', `/reports/payments.csv?from=${day(-1)}&to=${day(1)}`);
    expect(csv.statusCode, csv.body).toBe(200);
    const header = csv.body.split('\r\n')[0]!.split(',');
    const cardRow = csv.body.split('\r\n').find((l) => l.includes(card.id))!.split(',');
    const cell = (row: string[], name: string) => row[header.indexOf(name)];
    expect([cell(cardRow, 'collected_minor'), cell(cardRow, 'fee_minor'), cell(cardRow, 'fee_bearer'), cell(cardRow, 'net_minor'), cell(cardRow, 'net')]).toEqual(['18500', '361', 'merchant', '18139', '181.39']);

    // Folded totals equal those rebuilt from the base tables.
    await rebuildInvoiceSummaries(t.database.db);
    expect(await overview(finance)).toEqual(o);

    // A range before today holds nothing; live mode holds nothing (test integrations only).
    expect((await overview(finance, '?from=2020-01-01&to=2020-01-31')).totals.payments).toBe(0);
    expect((await overview(finance, '?mode=live')).totals.payments).toBe(0);
    expect((await overview(finance, '?mode=test')).totals.payments).toBe(2);
    expect((await overview(finance, '?currency=usd')).totals.payments).toBe(0);
  });

  it('counts an over-paid invoice as one open exception', async () => {
    const ref = uniqueInvoice('OVR');
    for (let i = 0; i < 2; i++) {
      const s = await openSession(t, m, { amount_minor: 1_000, invoice_ref: ref });
      t.clock.advanceSeconds(1);
      expect((await payByCard(t, s.id, '4242424242424242')).json().session_status).toBe('success');
    }
    expect((await overview(finance)).exceptions_open).toBe(1);
  });

  it('admin names the merchant; other roles are refused; bad input is a 400 naming the field', async () => {
    expect(errorCode(await call(t, admin, 'GET', '/overview'))).toBe('MERCHANT_ID_REQUIRED');
    expect((await overview(admin, `?merchant_id=${other.merchant_id}`)).counts.created).toBe(1);
    expect((await call(t, teller, 'GET', '/overview')).statusCode).toBe(403);
    for (const [q, field] of [['?from=2026-13-01', 'from'], ['?from=2026-02-01&to=2026-01-01', 'from'], ['?currency=GH', 'currency'], ['?mode=both', 'mode'], ['?from=2020-01-01&to=2026-01-01', 'to']] as const) {
      const res = await call(t, finance, 'GET', `/overview${q}`);
      expect(res.statusCode, q).toBe(400);
      expect(res.body, q).toContain(field);
    }
  });
});
