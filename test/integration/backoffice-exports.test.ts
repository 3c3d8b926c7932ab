import { get } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { CreatedIntegration } from '../../server/modules/integrations/integrations.service';
import { paymentsCsv } from '../../server/modules/finance/finance-export.service';
import { listFinanceExceptions } from '../../server/modules/finance/finance-exceptions.service';
import { exceptionsCsv } from '../../server/modules/finance/finance-exception-items';
import { auditCsv } from '../../server/modules/audit/audit.service';
import { createReportRunner } from '../../server/modules/reports/report-runner';
import { reportStream } from '../../server/http/report-stream';
import { connectDatabase, postgresUrlOf } from '../../server/db/database';
import { isDatabaseUnavailable } from '../../server/db/connection-errors';
import { openPostgresReader } from '../../server/db/postgres-reader';
import { createTestApp, type TestContext } from '../support/app';
import { onPostgres } from '../support/database';
import { BO, call, errorCode, sessionWithSlip, staff, type Staff } from '../support/backoffice';
import { openSession, payByCard } from '../support/checkout';
import { SESSION_COLUMNS } from '../../server/domain/session-transitions';

/**
 * Exports and reports run off the event loop, in the report worker (a worker thread
 * with its own read-only connection: on the SQLite file, or one PostgreSQL connection from the
 * same DATABASE_URL). Over HTTP the
 * files are the same bytes as the in-process functions give, every paid session once; a client
 * that goes away stops the work; a failing read is an error answer and the server goes on.
 */
describe('back-office exports off the event loop', () => {
  let t: TestContext;
  let m: CreatedIntegration;
  let fin: Staff;
  let admin: Staff;
  const CLONES = 6_000;
  const from = new Date(Date.now() - 2 * 86_400_000).toISOString();
  let to: string;
  /** The end of a range over the first clones only (a short file, for tiny slots). */
  let shortTo: string;

  beforeAll(async () => {
    t = await createTestApp();
    m = await t.merchant('Exports');
    fin = await staff(t, 'finance', { merchantId: m.merchant_id });
    admin = await staff(t, 'admin');
    // Paid by card, names a spreadsheet or a CSV parser would trip on (and characters of two,
    // three and four bytes in UTF-8); and one paid in cash.
    const names = ['Ama, Mensah', '=HYPERLINK("x")', 'Kofi "KB" Boateng, Ɔsei Dɛ 👩🏾‍💼'];
    const paid: string[] = [];
    for (const [i, name] of names.entries()) {
      t.clock.advanceSeconds(1);
      const s = await openSession(t, m, { invoice_ref: i === 2 ? 'INV-TWICE' : `INV-${i}`, amount_minor: 1_000 + i, customer: { name } });
      expect((await payByCard(t, s.id, '4242424242424242')).statusCode).toBe(201);
      paid.push(s.id);
    }
    // A second payment of INV-TWICE: a finance exception.
    const again = await openSession(t, m, { invoice_ref: 'INV-TWICE', amount_minor: 1_002 });
    expect((await payByCard(t, again.id, '4242424242424242')).statusCode).toBe(201);
    const teller = await staff(t, 'teller');
    const sup = await staff(t, 'supervisor');
    const slip = await sessionWithSlip(t, m, 5_000, 'INV-CASH');
    const deposit = (await call(t, teller, 'POST', `/cash-slips/${slip.slip_token}/deposits`, { amount_minor: slip.amount_minor })).json().deposit.id as string;
    expect((await call(t, sup, 'POST', `/deposits/${deposit}/approve`)).statusCode).toBe(200);
    // A year's worth in miniature: copies of the card payments (session and attempt rows), one
    // second apart, so the export runs over many batches of 200.
    const db = t.database.db;
    // The app's columns, not `*`: PostgreSQL's generated search columns (migration 0033) cannot be inserted.
    const sessions = await db.selectFrom('checkout_sessions').select(SESSION_COLUMNS).where('id', 'in', paid).execute();
    const attempts = await db.selectFrom('payment_attempts').selectAll().where('session_id', 'in', paid).where('status', '=', 'succeeded').execute();
    const base = t.clock.now().getTime() - 86_400_000;
    shortTo = new Date(base + 60_000).toISOString();
    for (let i = 0; i < CLONES; i += 500) {
      const n = Math.min(500, CLONES - i);
      const rows = Array.from({ length: n }, (_, k) => {
        const src = sessions[(i + k) % sessions.length]!;
        const at = new Date(base + (i + k) * 1000).toISOString();
        return { s: { ...src, id: `cs_clone_${i + k}`, invoice_ref: `INV-C-${i + k}`, created_at: at, updated_at: at, finalized_at: at }, src };
      });
      await db.transaction().execute(async (trx) => {
        await trx.insertInto('checkout_sessions').values(rows.map((r) => r.s)).execute();
        await trx
          .insertInto('payment_attempts')
          .values(rows.map((r) => ({ ...attempts.find((a) => a.session_id === r.src.id)!, id: `pa_clone_${r.s.id}`, session_id: r.s.id, payment_reference: null })))
          .execute();
      });
    }
    to = new Date(t.clock.now().getTime() + 86_400_000).toISOString();
  });
  afterAll(async () => t.close());

  const exportUrl = () => `/reports/payments.csv?from=${from}&to=${to}`;

  it('runs in the report worker on both engines', () => {
    expect(t.app.reports.mode).toBe('worker');
  });

  it('the payments CSV over HTTP: every paid session once, in paid order, the same bytes as the in-process export', async () => {
    const res = await call(t, fin, 'GET', exportUrl());
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/csv');
    const whole = await paymentsCsv(t.database.db, m.merchant_id, from, to, 100_000); // one batch, on the test's own handle
    expect(res.body).toBe(whole);
    const lines = res.body.trimEnd().split('\r\n');
    expect(lines).toHaveLength(1 + CLONES + 5);
    const ids = lines.slice(1).map((l) => /,(cs_[^,]+),/.exec(l)?.[1]);
    expect(new Set(ids).size).toBe(CLONES + 5);
    expect(res.body).toContain('"Ama, Mensah"');
    expect(res.body).toContain(`"'=HYPERLINK(""x"")"`);
    const paidAt = lines.slice(1).map((l) => l.split(',')[0]!);
    expect([...paidAt].sort()).toEqual(paidAt);
    // A runner of its own on the same file, small batches: the same file again.
    const runner = createReportRunner(t.database.db);
    try {
      expect(runner.mode).toBe('worker');
      expect(await runner.text('payments', { merchantId: m.merchant_id, from, to, batch: 50 })).toBe(whole);
    } finally {
      await runner.close();
    }
  }, 90_000); // three whole exports (one in 120 batches), each starting a worker from source: slow on a loaded machine

  it('byte for byte the in-process text however the byte slots of the worker cut it: characters of several bytes straddle chunks', async () => {
    const whole = await paymentsCsv(t.database.db, m.merchant_id, from, to, 100_000);
    expect(whole).toContain('Ɔsei Dɛ 👩🏾‍💼');
    // Over HTTP with the app's slots: a batch of 200 rows spans slots.
    const res = await call(t, fin, 'GET', exportUrl());
    expect(res.rawPayload.equals(Buffer.from(whole))).toBe(true);
    const short = await paymentsCsv(t.database.db, m.merchant_id, from, shortTo, 100_000);
    expect(short).toContain('👩🏾‍💼');
    for (const slotBytes of [5, 16]) {
      const runner = createReportRunner(t.database.db, false, { slotBytes });
      try {
        expect(runner.mode).toBe('worker');
        expect(await runner.text('payments', { merchantId: m.merchant_id, from, to: shortTo })).toBe(short);
        // Piped, as an HTTP answer is: each slot written as it is, and released only when the
        // writer is done with it (this one reads the bytes a turn later, as a socket may).
        const got: Buffer[] = [];
        const sink = new Writable({
          write(chunk: Buffer, _encoding, done) {
            setImmediate(() => {
              got.push(Buffer.from(chunk));
              done();
            });
          },
        });
        await pipeline(reportStream(await runner.open('payments', { merchantId: m.merchant_id, from, to: shortTo, batch: 7 })), sink);
        expect(got.length).toBeGreaterThan(Buffer.byteLength(short) / slotBytes - 1);
        expect(Buffer.concat(got).equals(Buffer.from(short))).toBe(true);
      } finally {
        await runner.close();
      }
    }
  }, 60_000);

  it.runIf(onPostgres)('on PostgreSQL the worker reads on a connection of its own, which cannot write', async () => {
    expect((await call(t, fin, 'GET', exportUrl())).statusCode).toBe(200);
    const db = t.database.db;
    const backends = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'paydesk-reports'`.execute(db);
    expect(backends.rows[0]!.n).toBe(1);
    const reader = openPostgresReader(postgresUrlOf(db)!);
    try {
      await expect(sql`UPDATE merchants SET name = name`.execute(reader.db)).rejects.toThrow(/read-only/);
      expect(await paymentsCsv(reader.db, m.merchant_id, from, to, 100_000)).toBe(await paymentsCsv(db, m.merchant_id, from, to, 100_000));
    } finally {
      await reader.close();
    }
  });

  it('the exceptions list and CSV and the audit CSV over HTTP are what the in-process functions give', async () => {
    const csv = await call(t, fin, 'GET', '/reports/exceptions.csv');
    expect(csv.statusCode).toBe(200);
    expect(csv.body).toBe(await exceptionsCsv(t.database.db, m.merchant_id, undefined));
    expect(csv.body).toContain('paid_twice');
    const kind = await call(t, fin, 'GET', '/reports/exceptions.csv?kind=paid_twice');
    expect(kind.body).toBe(await exceptionsCsv(t.database.db, m.merchant_id, 'paid_twice'));
    const list = await call(t, fin, 'GET', '/exceptions?limit=10');
    expect(list.statusCode).toBe(200);
    expect(list.json()).toEqual(await listFinanceExceptions(t.database.db, m.merchant_id, { limit: 10, offset: 0 }));
    expect(list.json().total).toBeGreaterThan(0);
    const audit = await call(t, admin, 'GET', '/audit/export.csv');
    expect(audit.statusCode).toBe(200);
    expect(audit.body).toBe(await auditCsv(t.database.db, {}));
    expect(audit.body.split('\r\n').length).toBeGreaterThan(2);
  });

  it('a client that aborts the download stops the export: the job is cancelled, not run to its end, and the server goes on', async () => {
    const before = t.app.reports.stats();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as AddressInfo;
    // A plain HTTP client that reads the first bytes, then hangs up.
    const firstBytes = await new Promise<number>((resolve, reject) => {
      const req = get(`http://127.0.0.1:${port}${BO}${exportUrl()}`, { headers: { authorization: `Bearer ${fin.token}` } }, (res) => {
        expect(res.statusCode).toBe(200);
        res.once('data', (chunk: Buffer) => {
          req.destroy();
          resolve(chunk.length);
        });
      });
      req.on('error', reject);
    });
    expect(firstBytes).toBeGreaterThan(0);
    // The job ends (in the worker: the worker confirms it stopped) without reaching the last batch.
    await expect.poll(() => t.app.reports.stats().running, { timeout: 10_000 }).toBe(0);
    const after = t.app.reports.stats();
    expect(after.cancelled - before.cancelled).toBe(1);
    expect(after.completed - before.completed).toBe(0);
    expect(after.chunks - before.chunks).toBeLessThan(CLONES / 200);
    // The next export is whole.
    const again = await call(t, fin, 'GET', exportUrl());
    expect(again.body.trimEnd().split('\r\n')).toHaveLength(1 + CLONES + 5);
  });

  it('a read that fails is an error answer, not a crash or a hung request; mid-file it ends the stream with an error', async () => {
    const db = t.database.db;
    const breakColumn = () => sql`ALTER TABLE checkout_sessions RENAME COLUMN finalized_at TO finalized_at_gone`.execute(db);
    const mendColumn = () => sql`ALTER TABLE checkout_sessions RENAME COLUMN finalized_at_gone TO finalized_at`.execute(db);
    const before = t.app.reports.stats();
    await breakColumn();
    try {
      const res = await call(t, fin, 'GET', exportUrl());
      expect(res.statusCode).toBe(500);
      expect(errorCode(res)).toBe('INTERNAL_ERROR');
      expect((await call(t, fin, 'GET', '/reports/exceptions.csv')).statusCode).toBe(500);
      // The server goes on: other calls answer.
      expect((await call(t, fin, 'GET', '/merchants')).statusCode).toBe(200);
    } finally {
      await mendColumn();
    }
    expect(t.app.reports.stats().failed - before.failed).toBe(2);
    // Mid-file: the first chunks arrive, then the read fails and the stream ends with the error.
    const chunks = await t.app.reports.open('payments', { merchantId: m.merchant_id, from, to, batch: 1 });
    const got: unknown[] = [];
    const first = await chunks.next();
    expect(first.done).toBe(false);
    got.push(first.value);
    first.value?.release();
    await breakColumn();
    try {
      await expect(
        (async () => {
          for (;;) {
            const r = await chunks.next();
            if (r.done) return;
            got.push(r.value);
            r.value.release();
          }
        })(),
      ).rejects.toThrow(/report|finalized_at/);
      expect(got.length).toBeLessThan(5);
    } finally {
      await mendColumn();
    }
    const res = await call(t, fin, 'GET', exportUrl());
    expect(res.statusCode).toBe(200);
    expect(res.body.trimEnd().split('\r\n')).toHaveLength(1 + CLONES + 5);
  });

  it('a PostgreSQL report worker that cannot reach its database fails the job as the database being unavailable (a 503), not a fault', async () => {
    // Nothing listens on port 1: the worker's connect is refused (the pool connects lazily, so opening the handle succeeds).
    const unreachable = connectDatabase({ databaseUrl: 'postgres://paydesk@127.0.0.1:1/paydesk', databaseFile: '' });
    const runner = createReportRunner(unreachable.db);
    try {
      expect(runner.mode).toBe('worker');
      const err = await runner.open('payments', { merchantId: m.merchant_id, from, to }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(Error);
      expect(isDatabaseUnavailable(err)).toBe(true);
      expect(runner.stats().failed).toBe(1);
    } finally {
      await runner.close();
      await unreachable.close();
    }
  });

  it('a bad range is a 400 naming the field before any worker is asked', async () => {
    const before = t.app.reports.stats();
    const bad = await call(t, fin, 'GET', `/reports/payments.csv?from=${to}&to=${from}`);
    expect(bad.statusCode).toBe(400);
    expect(errorCode(bad)).toBe('INVALID_ARGUMENT');
    expect(bad.json().error.message).toMatch(/^to:/);
    expect(t.app.reports.stats()).toEqual(before);
  });
});
