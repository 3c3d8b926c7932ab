import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../support/app';
import { post } from '../support/http';
import { openSession, payByCard, uniqueInvoice } from '../support/checkout';
import { call, errorCode, staff, type Staff } from '../support/backoffice';
import type { CreatedIntegration } from '../../server/modules/integrations/integrations.service';
import type { ExceptionItemList } from '../../shared/schemas/finance-exceptions';

/** Exceptions as work items: one per invoice, resolved or ignored with a note, audited, reopened by a new payment. */
describe('finance exception work items', () => {
  let t: TestContext;
  let m: CreatedIntegration;
  let finance: Staff;
  let admin: Staff;
  beforeAll(async () => {
    t = await createTestApp();
    m = await t.merchant('Tema Rates');
    finance = await staff(t, 'finance', { merchantId: m.merchant_id });
    admin = await staff(t, 'admin');
    await post(t.app, '/api/v1/revenue-lines', { lines: [{ code: 'RATES', name: 'Property rates' }] }, { key: m.api_key });
  });
  afterAll(async () => t.close());

  const invoice = async (amount: number) => {
    const ref = uniqueInvoice('ITEM');
    expect((await post(t.app, '/api/v1/invoice-lines', { invoice_ref: ref, currency: 'GHS', lines: [{ code: 'RATES', amount_minor: amount }] }, { key: m.api_key })).statusCode).toBe(200);
    return ref;
  };
  const pay = async (ref: string, amount: number) => {
    const s = await openSession(t, m, { invoice_ref: ref, amount_minor: amount });
    t.clock.advanceSeconds(1);
    expect((await payByCard(t, s.id, '4242424242424242')).json().session_status).toBe('success');
    return s.id;
  };
  const items = async (query = '') => {
    const res = await call(t, finance, 'GET', `/exception-items${query}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as ExceptionItemList;
  };
  const review = (ref: string, body: unknown, who: Staff = finance, q = '') => call(t, who, 'POST', `/exception-items/${encodeURIComponent(ref)}/review${q}`, body);

  it('an invoice paid twice is one item with both kinds merged; resolving needs a note and is audited; a new payment reopens it', async () => {
    const ref = await invoice(8_500);
    await pay(ref, 8_500);
    await pay(ref, 8_500);
    const open = (await items('?status=all')).items.filter((i) => i.invoice_ref === ref);
    expect(open).toHaveLength(1);
    expect(open[0]).toMatchObject({ status: 'open', kinds: ['overpaid', 'paid_twice'], billed_minor: 8_500, collected_minor: 17_000, difference_minor: 8_500, payments: 2, note: null, reopened: false });
    expect(open[0]!.summaries).toHaveLength(2);
    const before = await items();
    expect((await call(t, finance, 'GET', '/work-counts')).json()).toEqual({ exceptions_open: before.counts.open, deposits_waiting: null });

    for (const body of [{ status: 'resolved' }, { status: 'resolved', note: '   ' }, { status: 'done', note: 'x' }]) {
      const res = await review(ref, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().error.message).toMatch(/^(note|status)/);
    }
    const ok = await review(ref, { status: 'resolved', note: 'Refunded GHS 85.00 to the payer' });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json()).toMatchObject({ invoice_ref: ref, status: 'resolved', note: 'Refunded GHS 85.00 to the payer', reviewed_by: finance.username, reviewed_at: t.clock.now().toISOString() });

    const after = await items();
    expect(after.counts.open).toBe(before.counts.open - 1);
    expect(after.items.some((i) => i.invoice_ref === ref)).toBe(false);
    const resolved = (await items('?status=resolved')).items.find((i) => i.invoice_ref === ref)!;
    expect(resolved).toMatchObject({ status: 'resolved', note: 'Refunded GHS 85.00 to the payer', reviewed_by: finance.username });
    expect((await call(t, finance, 'GET', '/work-counts')).json().exceptions_open).toBe(after.counts.open);

    const audit = await t.database.db.selectFrom('audit_log').selectAll().where('action', '=', 'exception.resolve').where('target_id', '=', ref).execute();
    expect(audit).toHaveLength(1);
    expect(JSON.parse(audit[0]!.after ?? '{}')).toEqual({ exception_status: 'resolved', note: 'Refunded GHS 85.00 to the payer' });

    // A third payment changes the invoice: the item is open again, marked as reopened, with the last note kept.
    await pay(ref, 8_500);
    const again = (await items()).items.find((i) => i.invoice_ref === ref)!;
    expect(again).toMatchObject({ status: 'open', reopened: true, payments: 3, note: 'Refunded GHS 85.00 to the payer' });
  });

  it('ignore, reopen; filter by kind; 404 for an invoice without an exception; admin names the merchant; CSV numbers are numbers', async () => {
    const ref = await invoice(10_000);
    await pay(ref, 4_000); // part-payment
    expect((await items('?kind=amount_differs')).items.map((i) => i.invoice_ref)).toContain(ref);
    expect((await items('?kind=paid_twice')).items.map((i) => i.invoice_ref)).not.toContain(ref);
    expect((await review(ref, { status: 'ignored', note: 'Payer is on a payment plan' })).statusCode).toBe(200);
    expect((await items('?status=ignored')).items.map((i) => i.invoice_ref)).toContain(ref);
    expect((await review(ref, { status: 'open', note: 'Plan cancelled' })).statusCode).toBe(200);
    expect((await items()).items.find((i) => i.invoice_ref === ref)).toMatchObject({ status: 'open', reopened: false, note: 'Plan cancelled' });
    expect((await t.database.db.selectFrom('audit_log').select('action').where('target_id', '=', ref).orderBy('at').execute()).map((a) => a.action)).toEqual(['exception.ignore', 'exception.reopen']);

    const fine = await invoice(2_000);
    await pay(fine, 2_000);
    expect(errorCode(await review(fine, { status: 'resolved', note: 'x' }))).toBe('NOT_FOUND');
    expect(errorCode(await review(ref, { status: 'resolved', note: 'x' }, admin))).toBe('MERCHANT_ID_REQUIRED');
    expect((await review(ref, { status: 'resolved', note: 'Checked by admin' }, admin, `?merchant_id=${m.merchant_id}`)).statusCode).toBe(200);
    const teller = await staff(t, 'teller');
    expect((await review(ref, { status: 'resolved', note: 'x' }, teller)).statusCode).toBe(403);
    expect((await call(t, admin, 'GET', '/work-counts')).json().exceptions_open).toBeGreaterThanOrEqual(1);

    const csv = (await call(t, finance, 'GET', '/reports/exceptions.csv?kind=amount_differs')).body.trimEnd().split('\r\n');
    const header = csv[0]!.split(',');
    const row = csv.find((r) => r.includes(ref))!;
    // -6000 outstanding is a number a spreadsheet sums, not the text '-6000.
    expect(row).toContain(',-6000,');
    expect(row).not.toContain("'-6000");
    expect(header.slice(-6)).toEqual(['status', 'note', 'reviewed_by', 'reviewed_at', 'time_zone', 'mode']);
    expect(row).toContain(',UTC,test');
    expect(row).toContain(',resolved,Checked by admin,');
  });

  it('invoice truth: nothing billed, part-paid with what is outstanding, over-paid with its amount and a pointer to its exception', async () => {
    const invoiceOf = async (ref: string) => {
      const res = await call(t, finance, 'GET', `/invoices/${encodeURIComponent(ref)}`);
      expect(res.statusCode, res.body).toBe(200);
      return res.json().invoice;
    };
    const bare = uniqueInvoice('BARE');
    await pay(bare, 19_727);
    expect(await invoiceOf(bare)).toMatchObject({ line_count: 0, paid_minor: 19_727, payment_state: 'nothing_billed', overpaid_minor: 0, has_exception: false });
    const part = await invoice(10_000);
    await pay(part, 2_500);
    expect(await invoiceOf(part)).toMatchObject({ payment_state: 'part_paid', outstanding_minor: 7_500, has_exception: true });
    const over = await invoice(18_500);
    await pay(over, 37_000);
    expect(await invoiceOf(over)).toMatchObject({ payment_state: 'overpaid', overpaid_minor: 18_500, outstanding_minor: 0, has_exception: true });
    expect((await items(`?status=all&invoice_ref=${encodeURIComponent(over)}`)).items.map((i) => [i.invoice_ref, i.kinds])).toEqual([[over, ['overpaid']]]);
    const exact = await invoice(5_000);
    await pay(exact, 5_000);
    expect(await invoiceOf(exact)).toMatchObject({ payment_state: 'paid', has_exception: false });
    const list = (await call(t, finance, 'GET', '/invoices?limit=200')).json().invoices as Array<{ invoice_ref: string; payment_state: string }>;
    expect(list.find((i) => i.invoice_ref === bare)?.payment_state).toBe('nothing_billed');
  });

  it('a supervisor sees the deposits waiting for review', async () => {
    const sup = await staff(t, 'supervisor');
    const counts = (await call(t, sup, 'GET', '/work-counts')).json();
    expect(counts).toEqual({ exceptions_open: null, deposits_waiting: 0 });
  });
});
