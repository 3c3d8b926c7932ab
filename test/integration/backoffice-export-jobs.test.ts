import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedIntegration } from '../../server/modules/integrations/integrations.service';
import { paymentsCsv } from '../../server/modules/finance/finance-export.service';
import { SESSION_COLUMNS } from '../../server/domain/session-transitions';
import type { PaymentsExportJob } from '../../shared/schemas/backoffice';
import { createTestApp, type TestContext } from '../support/app';
import { call, errorCode, staff, type Staff } from '../support/backoffice';
import { openSession, payByCard } from '../support/checkout';

/**
 * A payments export the screen follows: started, its rows counted as they are written, and
 * cancelled on request (the report worker's job stops, the state reads cancelled, no file is
 * offered). Byte slots of 16 bytes make each export thousands of worker round trips, so it is
 * still running when the test looks at it (REPORT_SLOT_BYTES).
 */
describe('payments exports that report progress and can be cancelled', () => {
  let t: TestContext;
  let m: CreatedIntegration;
  let fin: Staff;
  let other: Staff;
  const CLONES = 3_000;
  const from = new Date(Date.now() - 2 * 86_400_000).toISOString();
  let to: string;

  beforeAll(async () => {
    t = await createTestApp({ env: { REPORT_SLOT_BYTES: '16' } });
    m = await t.merchant('Export jobs');
    fin = await staff(t, 'finance', { merchantId: m.merchant_id });
    other = await staff(t, 'finance', { merchantId: m.merchant_id });
    const s = await openSession(t, m, { invoice_ref: 'INV-X', amount_minor: 1_000, customer: { name: 'Ama Mensah' } });
    expect((await payByCard(t, s.id, '4242424242424242')).statusCode).toBe(201);
    const db = t.database.db;
    const src = (await db.selectFrom('checkout_sessions').select(SESSION_COLUMNS).where('id', '=', s.id).execute())[0]!;
    const attempt = (await db.selectFrom('payment_attempts').selectAll().where('session_id', '=', s.id).where('status', '=', 'succeeded').execute())[0]!;
    const base = t.clock.now().getTime() - 86_400_000;
    for (let i = 0; i < CLONES; i += 500) {
      const rows = Array.from({ length: Math.min(500, CLONES - i) }, (_, k) => {
        const at = new Date(base + (i + k) * 1000).toISOString();
        return { ...src, id: `cs_clone_${i + k}`, invoice_ref: `INV-C-${i + k}`, created_at: at, updated_at: at, finalized_at: at };
      });
      await db.transaction().execute(async (trx) => {
        await trx.insertInto('checkout_sessions').values(rows).execute();
        await trx
          .insertInto('payment_attempts')
          .values(rows.map((r) => ({ ...attempt, id: `pa_${r.id}`, session_id: r.id, payment_reference: null })))
          .execute();
      });
    }
    to = new Date(t.clock.now().getTime() + 86_400_000).toISOString();
  }, 60_000);
  afterAll(async () => t.close());

  const job = async (who: Staff, id: string): Promise<PaymentsExportJob> => {
    const res = await call(t, who, 'GET', `/reports/payments-exports/${id}`);
    expect(res.statusCode).toBe(200);
    return (res.json() as { export: PaymentsExportJob }).export;
  };
  const until = async (id: string, done: (j: PaymentsExportJob) => boolean, ms = 60_000): Promise<PaymentsExportJob> => {
    const end = Date.now() + ms;
    for (;;) {
      const j = await job(fin, id);
      if (done(j) || Date.now() > end) return j;
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  it('runs to completion with the rows counted, and its file is the CSV of GET /reports/payments.csv', async () => {
    const res = await call(t, fin, 'POST', '/reports/payments-exports', { from, to });
    expect(res.statusCode).toBe(202);
    const started = (res.json() as { export: PaymentsExportJob }).export;
    expect(started).toMatchObject({ state: 'running', rows_written: 0, from, to, finished_at: null, error: null });
    expect(started.file_name).toBe(`payments-${from.slice(0, 10)}-to-${to.slice(0, 10)}.csv`);
    const seen: number[] = [];
    const end = await until(started.id, (j) => (seen.push(j.rows_written), j.state !== 'running'), 120_000);
    expect(end.state).toBe('completed');
    expect(end.rows_written).toBe(CLONES + 1);
    // Followed while it ran: counts that grew, below the total.
    expect(seen.some((n) => n > 0 && n < CLONES + 1)).toBe(true);
    const file = await call(t, fin, 'GET', `/reports/payments-exports/${started.id}/file`);
    expect(file.statusCode).toBe(200);
    expect(file.headers['content-type']).toContain('text/csv');
    expect(file.headers['content-disposition']).toContain(started.file_name);
    expect(file.body).toBe(await paymentsCsv(t.database.db, m.merchant_id, from, to, 100_000));
    // Cancelling a finished export is refused; it stays completed.
    const late = await call(t, fin, 'POST', `/reports/payments-exports/${started.id}/cancel`);
    expect(late.statusCode).toBe(409);
    expect(errorCode(late)).toBe('STATE_CONFLICT');
  }, 180_000);

  it('a cancel stops the job in the report worker, the state reads cancelled and no file is offered', async () => {
    const before = t.app.reports.stats();
    const res = await call(t, fin, 'POST', '/reports/payments-exports', { from, to });
    expect(res.statusCode).toBe(202);
    const { id } = (res.json() as { export: PaymentsExportJob }).export;
    const running = await until(id, (j) => j.rows_written > 0);
    expect(running.state).toBe('running');
    // Another staff member of the same merchant neither sees nor cancels it.
    expect((await call(t, other, 'GET', `/reports/payments-exports/${id}`)).statusCode).toBe(404);
    expect((await call(t, other, 'POST', `/reports/payments-exports/${id}/cancel`)).statusCode).toBe(404);
    const cancel = await call(t, fin, 'POST', `/reports/payments-exports/${id}/cancel`);
    expect(cancel.statusCode).toBe(200);
    const cancelled = (cancel.json() as { export: PaymentsExportJob }).export;
    expect(cancelled.state).toBe('cancelled');
    expect(cancelled.finished_at).not.toBeNull();
    expect(cancelled.rows_written).toBeLessThan(CLONES + 1);
    // The worker confirms it stopped: counted as cancelled, nothing left running.
    const deadline = Date.now() + 10_000;
    while (t.app.reports.stats().running > before.running && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const after = t.app.reports.stats();
    expect(after.running).toBe(before.running);
    expect(after.cancelled).toBe(before.cancelled + 1);
    expect(after.completed).toBe(before.completed);
    // Nothing more is written: the count stays where the cancel left it.
    await new Promise((r) => setTimeout(r, 200));
    const later = await job(fin, id);
    expect(later).toMatchObject({ state: 'cancelled', rows_written: cancelled.rows_written });
    const file = await call(t, fin, 'GET', `/reports/payments-exports/${id}/file`);
    expect(file.statusCode).toBe(409);
    expect(errorCode(file)).toBe('STATE_CONFLICT');
    // A second cancel is harmless.
    expect((await call(t, fin, 'POST', `/reports/payments-exports/${id}/cancel`)).statusCode).toBe(200);
  }, 120_000);

  it('checks its input as the CSV route does: a bad range is a 400 naming the field, an unknown export a 404', async () => {
    const bad = await call(t, fin, 'POST', '/reports/payments-exports', { from: to, to: from });
    expect(bad.statusCode).toBe(400);
    expect((bad.json() as { error: { message: string } }).error.message).toContain('to');
    const missing = await call(t, fin, 'POST', '/reports/payments-exports', { from });
    expect(missing.statusCode).toBe(400);
    expect((missing.json() as { error: { message: string } }).error.message).toContain('to');
    expect((await call(t, fin, 'GET', '/reports/payments-exports/exp_nope')).statusCode).toBe(404);
    const teller = await staff(t, 'teller');
    expect((await call(t, teller, 'POST', '/reports/payments-exports', { from, to })).statusCode).toBe(403);
  });
});
