import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedIntegration } from '../../server/modules/integrations/integrations.service';
import { createTestApp, type TestContext } from '../support/app';
import { call, errorCode, sessionWithSlip, staff, type Slip, type Staff } from '../support/backoffice';

describe('back-office finance: merchant scoping, sessions, invoices, revenue lines, CSV', () => {
  let t: TestContext;
  let a: CreatedIntegration;
  let b: CreatedIntegration;
  let finA: Staff;
  let finB: Staff;
  let admin: Staff;
  let teller: Staff;
  let sup: Staff;
  let paid: Slip;
  let paidDeposit: string;
  let sessionB: string;
  const start = new Date();

  const merchantPost = (m: CreatedIntegration, url: string, payload: unknown) =>
    t.app.inject({ method: 'POST', url: `/api/v1${url}`, headers: { authorization: `Bearer ${m.api_key}` }, payload: payload as object });

  beforeAll(async () => {
    t = await createTestApp();
    t.clock.set(start);
    a = await t.merchant('Finance A');
    b = await t.merchant('Finance B');
    finA = await staff(t, 'finance', { merchantId: a.merchant_id });
    finB = await staff(t, 'finance', { merchantId: b.merchant_id });
    admin = await staff(t, 'admin');
    teller = await staff(t, 'teller');
    sup = await staff(t, 'supervisor');
    await merchantPost(a, '/revenue-lines', { lines: [{ code: 'WTR', name: 'Water' }, { code: 'SEW', name: 'Sewerage' }], deactivate_missing: false });
    await merchantPost(a, '/invoice-lines', { invoice_ref: 'INV-A-PAID', currency: 'GHS', lines: [{ code: 'WTR', name: 'Water', amount_minor: 7_000 }, { code: 'SEW', name: 'Sewerage', amount_minor: 3_000 }] });
    paid = await sessionWithSlip(t, a, 10_000, 'INV-A-PAID');
    paidDeposit = (await call(t, teller, 'POST', `/cash-slips/${paid.slip_token}/deposits`, { amount_minor: paid.amount_minor })).json().deposit.id;
    t.clock.advanceSeconds(60);
    expect((await call(t, sup, 'POST', `/deposits/${paidDeposit}/approve`)).statusCode).toBe(200);
    t.clock.advanceSeconds(60);
    await sessionWithSlip(t, a, 2_000, 'INV-A-OPEN');
    sessionB = (await sessionWithSlip(t, b, 5_000, 'INV-B-1')).session_id;
  });
  afterAll(async () => t.close());

  it('a finance user sees its own merchant only; another merchant is 404 NOT_FOUND everywhere', async () => {
    expect((await call(t, finA, 'GET', '/merchants')).json().merchants.map((m: { id: string }) => m.id)).toEqual([a.merchant_id]);
    const list = await call(t, finA, 'GET', '/sessions');
    expect(list.statusCode).toBe(200);
    expect(list.json().sessions.every((s: { merchant_id: string }) => s.merchant_id === a.merchant_id)).toBe(true);
    expect(list.json().total).toBe(2);
    for (const url of [
      `/sessions?merchant_id=${b.merchant_id}`,
      `/sessions/${sessionB}`,
      `/invoices?merchant_id=${b.merchant_id}`,
      `/invoices/INV-B-1`,
      `/revenue-lines?merchant_id=${b.merchant_id}`,
      `/reports/payments.csv?merchant_id=${b.merchant_id}&from=2020-01-01T00:00:00Z&to=2030-01-01T00:00:00Z`,
    ]) {
      const res = await call(t, finA, 'GET', url);
      expect(res.statusCode, url).toBe(404);
      expect(errorCode(res)).toBe('NOT_FOUND');
    }
    expect((await call(t, finB, 'GET', `/sessions/${sessionB}`)).statusCode).toBe(200);
    expect((await call(t, finB, 'GET', `/sessions/${paid.session_id}`)).statusCode).toBe(404);
  });

  it('an admin must name the merchant: 400 MERCHANT_ID_REQUIRED, 404 for an unknown one', async () => {
    for (const url of ['/sessions', '/invoices', '/revenue-lines', '/reports/payments.csv?from=2020-01-01T00:00:00Z&to=2030-01-01T00:00:00Z']) {
      const res = await call(t, admin, 'GET', url);
      expect(res.statusCode, url).toBe(400);
      expect(errorCode(res)).toBe('MERCHANT_ID_REQUIRED');
    }
    expect((await call(t, admin, 'GET', '/sessions?merchant_id=nope')).statusCode).toBe(404);
    const ok = await call(t, admin, 'GET', `/sessions?merchant_id=${b.merchant_id}`);
    expect(ok.json().sessions.map((s: { id: string }) => s.id)).toEqual([sessionB]);
    expect((await call(t, admin, 'GET', '/merchants')).json().merchants.length).toBeGreaterThanOrEqual(2);
    expect((await call(t, admin, 'GET', `/sessions/${sessionB}`)).statusCode).toBe(200);
  });

  it('tellers and supervisors may not read finance data: 403 FORBIDDEN', async () => {
    for (const who of [teller, sup]) {
      for (const url of ['/merchants', '/sessions', `/sessions/${paid.session_id}`, '/invoices', '/revenue-lines', '/reports/payments.csv?from=2020-01-01T00:00:00Z&to=2030-01-01T00:00:00Z']) {
        const res = await call(t, who, 'GET', url);
        expect(res.statusCode, `${who.role} ${url}`).toBe(403);
        expect(errorCode(res)).toBe('FORBIDDEN');
      }
    }
  });

  it('filters sessions by status, rail, invoice_ref (contains) and date, sorts and paginates', async () => {
    const q = async (qs: string) => (await call(t, finA, 'GET', `/sessions?${qs}`)).json() as { sessions: Array<{ id: string; invoice_ref: string; status: string; amount_minor: number }>; total: number };
    expect((await q('status=success')).sessions.map((s) => s.id)).toEqual([paid.session_id]);
    expect((await q('status=open')).sessions.map((s) => s.invoice_ref)).toEqual(['INV-A-OPEN']);
    expect((await q('rail=cash')).total).toBe(2);
    expect((await q('rail=momo')).total).toBe(0);
    expect((await q('invoice_ref=INV-A-P')).sessions.map((s) => s.invoice_ref)).toEqual(['INV-A-PAID']);
    expect((await q('invoice_ref=a-paid')).sessions.map((s) => s.invoice_ref)).toEqual(['INV-A-PAID']);
    expect((await q('invoice_ref=B-1')).total).toBe(0);
    const later = new Date(start.getTime() + 30_000).toISOString();
    expect((await q(`from=${later}`)).sessions.map((s) => s.invoice_ref)).toEqual(['INV-A-OPEN']);
    expect((await q(`to=${later}`)).sessions.map((s) => s.invoice_ref)).toEqual(['INV-A-PAID']);
    expect((await q('sort=amount_minor&dir=asc')).sessions.map((s) => s.amount_minor)).toEqual([2_000, 10_000]);
    const page = await q('limit=1&offset=1&sort=created_at&dir=desc');
    expect(page.total).toBe(2);
    expect(page.sessions.map((s) => s.invoice_ref)).toEqual(['INV-A-PAID']);
    for (const bad of ['status=done', 'rail=cheque', 'from=yesterday', 'limit=0', 'sort=merchant']) {
      const res = await call(t, finA, 'GET', `/sessions?${bad}`);
      expect(res.statusCode, bad).toBe(400);
      expect(errorCode(res)).toBe('INVALID_ARGUMENT');
    }
  });

  it('the session timeline shows the slip, the deposit and its review, the transitions and the event', async () => {
    const res = await call(t, finA, 'GET', `/sessions/${paid.session_id}`);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.session).toMatchObject({ id: paid.session_id, status: 'success', paid_rail: 'cash', invoice_ref: 'INV-A-PAID' });
    expect(body.lines).toHaveLength(2);
    expect(body.lines.every((l: { remitted: boolean }) => l.remitted)).toBe(true);
    const kinds = body.timeline.map((e: { kind: string; title: string }) => `${e.kind}:${e.title}`);
    expect(kinds[0]).toBe('created:Session created');
    expect(kinds.filter((k: string) => k.startsWith('created:') || k.includes('none'))).toEqual(['created:Session created']); // the creation history row is not shown twice
    expect(kinds).toContain(`slip:Cash slip ${paid.reference} issued`);
    expect(kinds).toContain('deposit:Cash deposit recorded');
    expect(kinds).toContain('deposit:Cash deposit approved');
    expect(kinds).toContain('transition:Status changed from Not paid yet to In progress');
    expect(kinds).toContain('transition:Status changed from In progress to Paid');
    expect(kinds).toContain('event:Merchant notified: payment completed');
    // Sentences, not codes: no internal id or provider status inside the words; ids travel as `ref`.
    for (const e of body.timeline as Array<{ kind: string; title: string; detail: string }>) {
      expect(`${e.title} ${e.detail}`).not.toMatch(/\b(?:pa|dep|evt)_[A-Za-z0-9]{6,}|checkout\.session\.|[A-Z]{4,}:[A-Z_]+/);
    }
    expect(body.timeline.find((e: { kind: string; title: string }) => e.title === 'Status changed from In progress to Paid').detail).toMatch(/^Cash deposit approved by /);
    const ats = body.timeline.map((e: { at: string }) => e.at);
    expect([...ats].sort()).toEqual(ats);
    expect((await call(t, finA, 'GET', '/sessions/cs_test_nope')).statusCode).toBe(404);
  });

  it('invoices carry lines, billed amount and the remitted state once a session succeeded', async () => {
    const list = (await call(t, finA, 'GET', '/invoices')).json();
    const byRef = Object.fromEntries(list.invoices.map((i: { invoice_ref: string }) => [i.invoice_ref, i]));
    expect(byRef['INV-A-PAID']).toMatchObject({ line_count: 2, billed_minor: 10_000, remitted: true, latest_session_status: 'success', currency: 'GHS' });
    expect(byRef['INV-A-OPEN']).toMatchObject({ line_count: 0, billed_minor: 0, remitted: false, latest_session_status: 'open' });
    expect((await call(t, finA, 'GET', '/invoices?remitted=true')).json().invoices.map((i: { invoice_ref: string }) => i.invoice_ref)).toEqual(['INV-A-PAID']);
    expect((await call(t, finA, 'GET', '/invoices?q=OPEN')).json().total).toBe(1);
    const byBilled = (await call(t, finA, 'GET', '/invoices?sort=billed_minor&dir=asc')).json().invoices.map((i: { invoice_ref: string }) => i.invoice_ref);
    expect(byBilled).toEqual(['INV-A-OPEN', 'INV-A-PAID']);
    expect((await call(t, finA, 'GET', '/invoices?sort=billed_minor;DROP')).statusCode).toBe(400);
    const detail = await call(t, finA, 'GET', '/invoices/INV-A-PAID');
    expect(detail.statusCode).toBe(200);
    expect(detail.json().lines.map((l: { code: string; remitted: boolean }) => [l.code, l.remitted])).toEqual([['SEW', true], ['WTR', true]]);
    expect(detail.json().sessions).toHaveLength(1);
    expect((await call(t, finA, 'GET', '/invoices/NOPE')).statusCode).toBe(404);
  });

  it('deactivates and reactivates a revenue line through the sync semantics (history row, merchant API agrees)', async () => {
    const view = (await call(t, finA, 'GET', '/revenue-lines')).json();
    expect(view.counts).toEqual({ total: 2, active: 2, inactive: 0 });
    const sew = view.lines.find((l: { code: string }) => l.code === 'SEW');
    const off = await call(t, finA, 'POST', `/revenue-lines/${sew.id}/deactivate`);
    expect(off.statusCode).toBe(200);
    expect(off.json().counts).toEqual({ total: 2, active: 1, inactive: 1 });
    expect(off.json().syncs[0]).toMatchObject({ source: 'back office', deactivated: 1, reactivated: 0, total: 1 });
    const merchantView = await t.app.inject({ method: 'GET', url: '/api/v1/revenue-lines', headers: { authorization: `Bearer ${a.api_key}` } });
    expect(merchantView.json().lines.map((l: { code: string }) => l.code)).toEqual(['WTR']);
    const refused = await merchantPost(a, '/invoice-lines', { invoice_ref: 'INV-A-NEW', currency: 'GHS', lines: [{ code: 'SEW', name: 'Sewerage', amount_minor: 100 }] });
    expect(refused.json().errors[0].code).toBe('REVENUE_LINE_UNKNOWN');
    const on = await call(t, finA, 'POST', `/revenue-lines/${sew.id}/activate`);
    expect(on.json().syncs[0]).toMatchObject({ reactivated: 1 });
    expect(on.json().counts.active).toBe(2);
    expect((await call(t, finB, 'POST', `/revenue-lines/${sew.id}/deactivate`)).statusCode).toBe(404);
    expect((await call(t, teller, 'POST', `/revenue-lines/${sew.id}/deactivate`)).statusCode).toBe(403);
  });

  it('exports the payments of a date range as CSV', async () => {
    const from = new Date(start.getTime() - 3600_000).toISOString();
    const to = new Date(start.getTime() + 3600_000).toISOString();
    const res = await call(t, finA, 'GET', `/reports/payments.csv?from=${from}&to=${to}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/csv/);
    expect(res.headers['content-disposition']).toMatch(/attachment; filename="payments-/);
    const rows = res.body.trim().split('\r\n');
    expect(rows[0]).toBe('paid_at,session_id,merchant,invoice_ref,rail,currency,amount_minor,fee_minor,collected_minor,amount,fee,collected,payment_reference,deposit_id,recorded_by,approved_by,customer_name,mode,fee_bearer,net_minor,net,time_zone');
    expect(rows).toHaveLength(2);
    const cells = rows[1]!.split(',');
    expect(cells.slice(1, 7)).toEqual([paid.session_id, 'Finance A', 'INV-A-PAID', 'cash', 'GHS', '10000']);
    expect(cells[8]).toBe(String(paid.amount_minor));
    const fee = paid.amount_minor - 10_000;
    expect(cells[7]).toBe(String(fee));
    // The decimals name the same amounts as the minor-unit columns beside them.
    expect(cells.slice(9, 12)).toEqual(['100.00', (fee / 100).toFixed(2), (paid.amount_minor / 100).toFixed(2)]);
    expect(cells.slice(12, 16)).toEqual([paid.reference, paidDeposit, teller.username, sup.username]);
    // The cash handling fee is the payer's: the merchant nets the invoice amount.
    expect(cells.slice(18)).toEqual(['payer', '10000', '100.00', 'UTC']);
    // Times are UTC, and the last column says so.
    expect(cells[0]).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    const empty = await call(t, finA, 'GET', `/reports/payments.csv?from=${to}&to=${new Date(start.getTime() + 7200_000).toISOString()}`);
    expect(empty.body.trim().split('\r\n')).toHaveLength(1);
    const backwards = await call(t, finA, 'GET', `/reports/payments.csv?from=${to}&to=${from}`);
    expect(backwards.statusCode).toBe(400);
    expect(backwards.json().error.message).toMatch(/^to/);
    const missing = await call(t, finA, 'GET', `/reports/payments.csv?to=${to}`);
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error.message).toMatch(/^from/);
  });
});
