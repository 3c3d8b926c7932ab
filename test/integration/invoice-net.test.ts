import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedIntegration } from '../../server/modules/integrations/integrations.service';
import { createTestApp, type TestContext } from '../support/app';
import { call, sessionWithSlip, staff, type Staff } from '../support/backoffice';
import { openSession, payByCard } from '../support/checkout';

type Row = { id: string; status: string; amount_minor: number; fee_minor: number | null; collected_minor: number | null };

/**
 * An invoice's sessions carry what the sessions list and the payments CSV show of each payment:
 * the fee, what was collected, and from those the net to the merchant. A card fee is the
 * merchant's (taken from the amount), a cash fee the payer's (added to it); the figures of the
 * invoice detail add up to the invoice's paid total and agree with the CSV row by row.
 */
describe('an invoice detail: gross, fee and net of each session', () => {
  let t: TestContext;
  let m: CreatedIntegration;
  let fin: Staff;
  const start = new Date();
  const REF = 'INV-NET-1';
  let card: string;
  let cash: string;
  let open: string;

  beforeAll(async () => {
    t = await createTestApp();
    t.clock.set(start);
    m = await t.merchant('Net Merchant');
    fin = await staff(t, 'finance', { merchantId: m.merchant_id });
    const teller = await staff(t, 'teller');
    const sup = await staff(t, 'supervisor');
    const post = (url: string, payload: unknown) => t.app.inject({ method: 'POST', url: `/api/v1${url}`, headers: { authorization: `Bearer ${m.api_key}` }, payload: payload as object });
    await post('/revenue-lines', { lines: [{ code: 'WTR', name: 'Water' }], deactivate_missing: false });
    expect((await post('/invoice-lines', { invoice_ref: REF, currency: 'GHS', lines: [{ code: 'WTR', name: 'Water', amount_minor: 15_000 }] })).statusCode).toBeLessThan(300);
    card = (await openSession(t, m, { amount_minor: 10_000, invoice_ref: REF })).id;
    expect((await payByCard(t, card, '4242424242424242')).statusCode).toBe(201);
    const slip = await sessionWithSlip(t, m, 5_000, REF);
    cash = slip.session_id;
    const deposit = (await call(t, teller, 'POST', `/cash-slips/${slip.slip_token}/deposits`, { amount_minor: slip.amount_minor })).json().deposit.id;
    expect((await call(t, sup, 'POST', `/deposits/${deposit}/approve`)).statusCode).toBe(200);
    open = (await openSession(t, m, { amount_minor: 1_000, invoice_ref: REF })).id;
  });
  afterAll(async () => t.close());

  it('each paid session has its fee and collected amount; the unpaid one has neither; the sums match the invoice and the CSV', async () => {
    const res = await call(t, fin, 'GET', `/invoices/${REF}`);
    expect(res.statusCode, res.body).toBe(200);
    const detail = res.json() as { invoice: { paid_minor: number; billed_minor: number; outstanding_minor: number }; sessions: Row[] };
    const byId = new Map(detail.sessions.map((s) => [s.id, s]));
    expect([...byId.keys()].sort()).toEqual([card, cash, open].sort());

    // Card: the merchant bears the fee, the payer paid the amount, the merchant nets less.
    const c = byId.get(card)!;
    expect(c.status).toBe('success');
    expect(c.collected_minor).toBe(10_000);
    expect(c.fee_minor).toBeGreaterThan(0);
    // Cash: the payer bears the fee, added to the amount; the merchant nets the amount.
    const k = byId.get(cash)!;
    expect(k.status).toBe('success');
    expect(k.fee_minor).toBeGreaterThan(0);
    expect(k.collected_minor).toBe(5_000 + k.fee_minor!);
    // Not paid: no fee, nothing collected (the screen shows a dash).
    expect(byId.get(open)).toMatchObject({ status: 'open', fee_minor: null, collected_minor: null });

    const paidRows = detail.sessions.filter((s) => s.status === 'success');
    const gross = paidRows.reduce((n, s) => n + s.amount_minor, 0);
    const net = paidRows.reduce((n, s) => n + s.collected_minor! - s.fee_minor!, 0);
    expect(gross).toBe(detail.invoice.paid_minor);
    expect(detail.invoice).toMatchObject({ billed_minor: 15_000, paid_minor: 15_000, outstanding_minor: 0 });
    expect(net).toBe(15_000 - c.fee_minor!);

    // The payments CSV says the same per session: net_minor = collected − fee, bearer named.
    const from = new Date(start.getTime() - 3600_000).toISOString();
    const to = new Date(start.getTime() + 3600_000).toISOString();
    const csv = await call(t, fin, 'GET', `/reports/payments.csv?from=${from}&to=${to}`);
    expect(csv.statusCode).toBe(200);
    const [header, ...lines] = csv.body.trim().split('\r\n');
    const cols = header!.split(',');
    const cell = (cells: string[], name: string) => cells[cols.indexOf(name)]!;
    const csvRows = new Map(lines.map((l) => l.split(',')).map((cells) => [cell(cells, 'session_id'), cells]));
    expect(csvRows.size).toBe(2);
    for (const s of paidRows) {
      const cells = csvRows.get(s.id)!;
      expect(Number(cell(cells, 'net_minor'))).toBe(s.collected_minor! - s.fee_minor!);
      expect(Number(cell(cells, 'fee_minor'))).toBe(s.fee_minor);
      expect(cell(cells, 'fee_bearer')).toBe(s.id === card ? 'merchant' : 'payer');
    }
  });
});
