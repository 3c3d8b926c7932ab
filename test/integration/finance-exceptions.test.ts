import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../support/app';
import { post } from '../support/http';
import { events, openSession, payByCard, uniqueInvoice } from '../support/checkout';
import { call, errorCode, staff, type Staff } from '../support/backoffice';
import type { CreatedIntegration } from '../../server/modules/integrations/integrations.service';
import type { ExceptionList, FinanceException } from '../../shared/schemas/finance-exceptions';

/** Payments that do not reconcile with their invoice land on the finance exceptions list. */
describe('finance exceptions', () => {
  let t: TestContext;
  let m: CreatedIntegration;
  let other: CreatedIntegration;
  let finance: Staff;
  let admin: Staff;
  beforeAll(async () => {
    t = await createTestApp();
    m = await t.merchant('Kumasi Waste');
    other = await t.merchant('Someone Else');
    finance = await staff(t, 'finance', { merchantId: m.merchant_id });
    admin = await staff(t, 'admin');
    await post(t.app, '/api/v1/revenue-lines', { lines: [{ code: 'WASTE', name: 'Refuse collection' }] }, { key: m.api_key });
  });
  afterAll(async () => t.close());

  async function invoiceOf(amount: number, ref = uniqueInvoice('EXC')): Promise<string> {
    const res = await post(t.app, '/api/v1/invoice-lines', { invoice_ref: ref, currency: 'GHS', lines: [{ code: 'WASTE', amount_minor: amount }] }, { key: m.api_key });
    expect(res.statusCode, res.body).toBe(200);
    return ref;
  }
  const paySession = async (id: string) => {
    t.clock.advanceSeconds(1);
    expect((await payByCard(t, id, '4242424242424242')).json().session_status).toBe('success');
  };
  const pay = async (ref: string, amount: number) => {
    const s = await openSession(t, m, { invoice_ref: ref, amount_minor: amount });
    await paySession(s.id);
    return s.id;
  };
  const list = async (query = '') => {
    const res = await call(t, finance, 'GET', `/exceptions${query}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as ExceptionList;
  };
  const forInvoice = async (ref: string) => (await list('?limit=200')).exceptions.filter((e) => e.invoice_ref === ref);

  it('a second payment after the invoice was fully paid: paid twice and over-paid, with the amounts and both sessions', async () => {
    const ref = await invoiceOf(5_000);
    const first = await pay(ref, 5_000);
    expect(await forInvoice(ref)).toEqual([]);
    const second = await pay(ref, 5_000);
    expect((await events(t, second)).map((e) => e.type)).toEqual(['checkout.session.completed']); // the money moved: the event goes out
    const rows = await forInvoice(ref);
    expect(rows.map((e) => e.kind).sort()).toEqual(['overpaid', 'paid_twice']);
    const twice = rows.find((e) => e.kind === 'paid_twice')!;
    expect(twice).toMatchObject({
      id: `paid_twice:${second}`,
      session_id: second,
      currency: 'GHS',
      billed_minor: 5_000,
      collected_before_minor: 5_000,
      amount_minor: 5_000,
      collected_minor: 10_000,
      difference_minor: 5_000,
      summary: expect.stringContaining('again after the invoice was fully paid'),
    });
    expect(twice.sessions.map((s) => [s.id, s.trigger])).toEqual([[first, false], [second, true]]);
    expect(rows.find((e) => e.kind === 'overpaid')).toMatchObject({ session_id: second, difference_minor: 5_000, summary: expect.stringMatching(/GHS\s?50\.00 over-paid across 2 payments/) });
  });

  it('two sessions open at the same time for one invoice, both paid: concurrent_sessions_paid', async () => {
    const ref = await invoiceOf(3_000);
    const a = await openSession(t, m, { invoice_ref: ref, amount_minor: 3_000 });
    const b = await openSession(t, m, { invoice_ref: ref, amount_minor: 3_000 });
    await paySession(a.id);
    await paySession(b.id);
    const rows = await forInvoice(ref);
    expect(rows.map((e) => e.kind).sort()).toEqual(['concurrent_sessions_paid', 'overpaid']);
    expect(rows.find((e) => e.kind === 'concurrent_sessions_paid')).toMatchObject({ session_id: b.id, sessions: [{ id: a.id, trigger: false }, { id: b.id, trigger: true }] });
  });

  it('a part-payment is listed as amount_differs with what is still outstanding; paying the rest adds nothing', async () => {
    const ref = await invoiceOf(10_000);
    const part = await pay(ref, 2_500);
    expect(await forInvoice(ref)).toEqual([
      expect.objectContaining({ kind: 'amount_differs', session_id: part, billed_minor: 10_000, amount_minor: 2_500, collected_minor: 2_500, difference_minor: -7_500 }),
    ]);
    await pay(ref, 7_500);
    expect((await forInvoice(ref)).map((e: FinanceException) => e.kind)).toEqual(['amount_differs']);
  });

  it('an invoice reference without lines paid twice is listed as paid twice (nothing to measure a part-payment against)', async () => {
    const ref = uniqueInvoice('NOLINES');
    const first = await pay(ref, 700);
    expect(await forInvoice(ref)).toEqual([]);
    const second = await pay(ref, 700);
    expect(await forInvoice(ref)).toEqual([
      expect.objectContaining({ kind: 'paid_twice', session_id: second, billed_minor: 0, collected_minor: 1_400, summary: expect.stringContaining('already paid by 1 earlier session') }),
    ]);
    expect((await forInvoice(ref))[0]!.sessions.map((x) => x.id)).toEqual([first, second]);
  });

  it('filters by kind with counts per kind, paginates, and exports the same rows as CSV with formulas neutralised', async () => {
    const ref = await invoiceOf(1_000, `=HYPERLINK("x")-${uniqueInvoice()}`);
    await pay(ref, 1_000);
    await pay(ref, 1_000);
    const all = await list();
    expect(all.counts.paid_twice).toBeGreaterThanOrEqual(1);
    const twice = await list('?kind=paid_twice&limit=1');
    expect(twice.exceptions).toHaveLength(1);
    expect(twice.total).toBe(all.counts.paid_twice);
    expect(twice.exceptions[0]!.invoice_ref).toBe(ref); // newest first
    const csv = await call(t, finance, 'GET', '/reports/exceptions.csv?kind=paid_twice');
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    expect(csv.headers['content-disposition']).toMatch(/attachment; filename="exceptions-\d{4}-\d{2}-\d{2}\.csv"/);
    const rows = csv.body.trimEnd().split('\r\n');
    expect(rows[0]).toBe('detected_at,kind,invoice_ref,currency,billed_minor,collected_before_minor,amount_minor,collected_minor,difference_minor,session_id,paid_rail,other_sessions,summary,status,note,reviewed_by,reviewed_at,time_zone,mode');
    expect(rows).toHaveLength(1 + all.counts.paid_twice);
    expect(rows[1]).toContain(`paid_twice,"'=HYPERLINK(""x"")-`);
    expect(rows.slice(1).every((r) => /,UTC,(test|live)$/.test(r))).toBe(true);
  });

  it('is merchant-scoped for finance and admin; other roles are refused', async () => {
    expect(errorCode(await call(t, finance, 'GET', `/exceptions?merchant_id=${other.merchant_id}`))).toBe('NOT_FOUND');
    expect(errorCode(await call(t, admin, 'GET', '/exceptions'))).toBe('MERCHANT_ID_REQUIRED');
    const asAdmin = await call(t, admin, 'GET', `/exceptions?merchant_id=${m.merchant_id}`);
    expect(asAdmin.statusCode).toBe(200);
    expect((await call(t, admin, 'GET', `/exceptions?merchant_id=${other.merchant_id}`)).json().total).toBe(0);
    const teller = await staff(t, 'teller');
    expect((await call(t, teller, 'GET', '/exceptions')).statusCode).toBe(403);
    expect((await call(t, teller, 'GET', '/reports/exceptions.csv')).statusCode).toBe(403);
    expect(errorCode(await call(t, finance, 'GET', '/exceptions?kind=bogus'))).toBe('INVALID_ARGUMENT');
  });

  it('a reference paid 52 times: 51 paid_twice rows, each listing at most 50 sessions (the trigger and the nearest earlier payments)', async () => {
    const ref = uniqueInvoice('MANY');
    const paid: string[] = [];
    for (let i = 0; i < 52; i++) paid.push(await pay(ref, 100));
    const rows = await forInvoice(ref);
    expect(rows.map((e) => e.kind)).toEqual(Array(51).fill('paid_twice'));
    expect(rows.map((e) => e.session_id)).toEqual(paid.slice(1).reverse()); // newest first
    expect(rows[0]!.sessions.map((x) => x.id)).toEqual(paid.slice(2)); // 49 earlier + the trigger
    expect(rows[0]!.summary).toContain('already paid by 51 earlier sessions');
    expect(rows.at(-1)!.sessions.map((x) => [x.id, x.trigger])).toEqual([[paid[0], false], [paid[1], true]]);
    const csv = (await call(t, finance, 'GET', '/reports/exceptions.csv?kind=paid_twice')).body.trimEnd().split('\r\n');
    const newest = csv.find((r) => r.includes(`,${paid[51]},`))!;
    expect(newest).toContain(paid.slice(2, 51).join(' '));
    expect(newest).not.toContain(paid[1]!);
  }, 120_000);
});
