import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { TestContext } from '../support/app';
import { onPostgres } from '../support/database';
import { call, sessionWithSlip, staff, type Staff } from '../support/backoffice';
import { openSession, payByCard } from '../support/checkout';
import { post } from '../support/http';
import { explainFailures, recordedApp, type SqlRecorder } from '../support/query-plans';
import { sweep } from '../../server/jobs/sweeper';
import { foldInvoiceSummaries } from '../../server/jobs/invoice-summary-fold';
import { randomIds } from '../../server/lib/ids';
import { reconcileStuckAttempts } from '../../server/modules/payments/reconcile';
import { indexSearchBacklog } from '../../server/db/search/sqlite-index';
import { merchantScope, sessionSearchOf } from '../../server/db/search';
import { purgeExpiredIdempotencyKeys } from '../../server/modules/idempotency/idempotency.service';
import { createDispatcher } from '../../server/modules/webhooks/dispatcher';
import { claimStatements } from '../../server/modules/webhooks/claim';
import { sandboxProviders } from '../../server/providers/index';
import type { CreatedIntegration } from '../../server/modules/integrations/integrations.service';

/**
 * Every periodic, list and search query the server runs finds its rows through an index, so its
 * cost does not grow with the tables: the app runs on a handle that records the SQL of every
 * statement (on PostgreSQL also what its pool sends: the prepared hot texts with their values),
 * and each recorded statement is explained (test/support/query-plans.ts). The capped and
 * punctuation searches are query-plans-search.test.ts, the sweeper with rows due
 * query-plans-sweeper.test.ts, the hot prepared statements of PostgreSQL query-plans-prepared.test.ts.
 */

describe('every periodic, list and search query uses an index', () => {
  let t: TestContext;
  let recorder: SqlRecorder;
  let m: CreatedIntegration;
  let admin: Staff;
  let invoiceRef: string;
  let paidSessionId: string;

  beforeAll(async () => {
    ({ t, recorder } = await recordedApp());
    m = await t.merchant('Plans Merchant', 'https://hooks.example.com/paydesk');
    admin = await staff(t, 'admin');
    // A little of everything the lists join: a paid session, a slip with a deposit, events and deliveries.
    const paid = await openSession(t, m, { invoice_ref: 'PLAN-1' });
    invoiceRef = 'PLAN-1';
    paidSessionId = paid.id;
    await payByCard(t, paid.id, '4242424242424242');
    await openSession(t, m, { invoice_ref: 'PLAN-1' }); // a second page of the invoice's sessions
    const teller = await staff(t, 'teller');
    // Two deposits (and their audit entries), so that those lists have a second page by cursor.
    for (const ref of ['PLAN-2', 'PLAN-3']) {
      const slip = await sessionWithSlip(t, m, 5_000, ref);
      await call(t, teller, 'POST', `/cash-slips/${slip.slip_token}/deposits`, { amount_minor: slip.amount_minor });
    }
  });
  afterAll(async () => {
    await t?.close();
  });

  async function record(label: string, run: () => Promise<unknown>): Promise<void> {
    recorder.label = label;
    try {
      await run();
    } finally {
      recorder.label = null;
    }
  }

  async function get(url: string): Promise<void> {
    const res = await call(t, admin, 'GET', url);
    expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
  }

  it('finds no full scan of a growing table', async () => {
    const wrapped = t.database.db.withPlugin(recorder);
    const deps = { clock: t.clock, ids: randomIds, outbox: t.outbox };
    await record('sweeper', () => sweep(wrapped, deps));
    // The session search's index job (SQLite; a no-op on PostgreSQL) with a backlog to index and segments to merge, in
    // ranges of 2 rowids (0025): ranges closed, made and merged, and the searches below read several.
    // One session of another merchant among them: its range records both merchants (0031), whose rows the search then checks.
    const other = await t.merchant('Plans Other Merchant');
    await record('search index', async () => {
      for (let i = 0; i < 5; i++) {
        if (i === 2) await openSession(t, other, { invoice_ref: 'PLAN-IDX-OTHER' });
        await openSession(t, m, { invoice_ref: `PLAN-IDX-${i}` });
        await openSession(t, m, { invoice_ref: `PLAN-IDX-${i}-B` });
        await indexSearchBacklog(wrapped, { merge: true, rangeRows: 2 });
      }
    });
    await openSession(t, m, { invoice_ref: 'PLAN-IDX-LAST' }); // the search's catch-up has one to index
    await record('reconcile', () => reconcileStuckAttempts({ ...deps, db: wrapped, providers: sandboxProviders }));
    await record('idempotency purge', () => purgeExpiredIdempotencyKeys(wrapped, t.clock));
    // A delivery of this test's (read outside any label: on PostgreSQL the pool's statements are recorded too).
    const delivery = await t.database.db.selectFrom('webhook_deliveries').select(['id', 'event_id', 'endpoint_id']).executeTakeFirstOrThrow();
    await record('dispatcher claim', async () => {
      const d = createDispatcher({ db: wrapped, clock: t.clock, outbox: t.outbox, retryDelaysS: [60], pollIntervalMs: 20, attemptTimeoutMs: 200 });
      await d.start();
      await new Promise((r) => setTimeout(r, 100));
      await d.stop();
      // The claim is compiled once per list size and run with new values: the text it runs, with
      // that delivery, nothing busy and two in flight (a padded `not in` list).
      const now = t.clock.now();
      for (const busy of [[], [delivery.id, 'whd_none']]) {
        const opts = { owner: d.owner, now: now.toISOString(), lease: new Date(now.getTime() + 60_000).toISOString(), limit: 64, busy };
        for (const c of claimStatements(wrapped, opts, [delivery.event_id], [delivery.endpoint_id])) recorder.add('dispatcher claim', c);
      }
    });
    const mq = `merchant_id=${m.merchant_id}`;
    await record('sessions list', async () => {
      await get(`/sessions?${mq}`);
      await get(`/sessions?${mq}&status=success&sort=amount_minor&dir=asc`);
      await get(`/sessions?${mq}&offset=50`);
      const first = await call(t, admin, 'GET', `/sessions?${mq}&limit=1`);
      await get(`/sessions?${mq}&limit=1&cursor=${(first.json() as { next_cursor: string }).next_cursor}`);
      const byAmount = await call(t, admin, 'GET', `/sessions?${mq}&limit=1&sort=amount_minor`);
      await get(`/sessions?${mq}&limit=1&sort=amount_minor&cursor=${(byAmount.json() as { next_cursor: string }).next_cursor}`);
    });
    await record('sessions search', async () => {
      await get(`/sessions?${mq}&q=PLAN`);
      await get(`/sessions?${mq}&q=plan%20payer`);
      await get(`/sessions?${mq}&q=PL`);
      await get(`/sessions?${mq}&q=%22%25_%5C*`);
      await get(`/sessions?${mq}&q=1234`);
      await get(`/sessions?${mq}&q=${paidSessionId}`);
      await get(`/sessions?${mq}&q=${paidSessionId.slice(0, 12)}`);
      await get(`/sessions?${mq}&q=PLAN&status=success&sort=amount_minor&dir=asc&offset=50`);
      await get(`/sessions?${mq}&invoice_ref=LAN-`);
      await get(`/sessions?${mq}&invoice_ref=P`);
      // PostgreSQL reads a broad text day by day (server/db/search/, 0026): the sample only says so on a big table.
      if (onPostgres) {
        const search = sessionSearchOf(wrapped);
        const scope = { merchantId: m.merchant_id, cap: 10_000, now: t.clock.now().getTime(), byDay: true };
        expect((await search.hits(wrapped, 'PLAN', scope)).keys.length).toBeGreaterThan(0);
        await search.hits(wrapped, 'plan payer', scope);
        await search.hits(wrapped, 'LAN-', scope, 'invoice_ref');
        // Capped, the walk answers a window, and the list reads its page by it (`among`): by time and by amount.
        const capped = { ...scope, cap: 1 };
        const hits = await search.hits(wrapped, 'PLAN', capped);
        expect(hits.window).not.toBeNull();
        for (const byTime of [true, false]) {
          const page = wrapped.selectFrom('checkout_sessions as s').innerJoin('merchants as m', 'm.id', 's.merchant_id').select('s.id').where(merchantScope(true), '=', m.merchant_id).where((eb) => search.among(eb, capped, hits, byTime));
          await (byTime ? page.orderBy('s.created_at', 'desc') : page.orderBy('s.amount_minor', 'asc')).orderBy('s.id', 'desc').limit(51).execute();
        }
      }
    });
    await record('sessions amount', () => get(`/sessions?${mq}&amount_minor=5000`));
    await record('session detail', () => get(`/sessions/${paidSessionId}`));
    await record('invoices list', async () => {
      await get(`/invoices?${mq}`);
      await get(`/invoices?${mq}&q=PLAN&offset=50`);
      await get(`/invoices?${mq}&offset=1`);
      await get(`/invoices?${mq}&remitted=true`);
      await get(`/invoices?${mq}&remitted=false&offset=1`);
      await get(`/invoices?${mq}&sort=billed_minor&dir=asc`);
      await get(`/invoices?${mq}&sort=line_count`);
      await get(`/invoices?${mq}&sort=invoice_ref&dir=asc&offset=1`);
      for (const order of ['', '&remitted=false', '&sort=billed_minor&dir=asc', '&sort=line_count', '&sort=invoice_ref']) {
        const first = await call(t, admin, 'GET', `/invoices?${mq}&limit=1${order}`);
        await get(`/invoices?${mq}&limit=1${order}&cursor=${(first.json() as { next_cursor: string }).next_cursor}`);
      }
    });
    // The invoice summary's writers (domain/invoice-summary.ts): a line ingest, a session created and paid.
    await record('invoice summary writes', async () => {
      expect((await post(t.app, '/api/v1/revenue-lines', { lines: [{ code: 'PLANW', name: 'Water' }] }, { key: m.api_key })).statusCode).toBe(200);
      expect((await post(t.app, '/api/v1/invoice-lines', { invoice_ref: 'PLAN-3', currency: 'GHS', lines: [{ code: 'PLANW', amount_minor: 10_000 }] }, { key: m.api_key })).statusCode).toBe(200);
      const s = await openSession(t, m, { invoice_ref: 'PLAN-3' });
      expect((await payByCard(t, s.id, '4242424242424242')).statusCode).toBe(201);
    });
    // Their deltas folded (jobs/invoice-summary-fold.ts, the sweeper's job): from the low end of the log, each ref by key.
    await record('invoice summary fold', async () => {
      expect(await foldInvoiceSummaries(wrapped)).toBeGreaterThanOrEqual(4);
    });
    await record('invoice detail', async () => {
      const first = await call(t, admin, 'GET', `/invoices/${invoiceRef}?${mq}&limit=1`);
      await get(`/invoices/${invoiceRef}?${mq}&limit=1&cursor=${(first.json() as { next_cursor: string }).next_cursor}`);
    });
    /** The page after the first by `next_cursor` (a list of at least two rows). */
    const second = async (url: string) => {
      const first = await call(t, admin, 'GET', `${url}${url.includes('?') ? '&' : '?'}limit=1`);
      const cursor = (first.json() as { next_cursor: string | null }).next_cursor;
      expect(cursor, url).toEqual(expect.any(String));
      await get(`${url}${url.includes('?') ? '&' : '?'}limit=1&cursor=${cursor}`);
    };
    await record('deposits list', async () => {
      await get('/deposits');
      await get('/deposits?status=under_review');
      await get('/deposits?offset=50');
      await second('/deposits?dir=desc');
      await second('/deposits?dir=asc');
    });
    await record('audit list', async () => {
      await get('/audit');
      await get('/audit?offset=50');
      await get(`/audit?target_id=${paidSessionId}`);
      await second('/audit');
      await second('/audit?dir=asc');
    });
    const { event_id } = await t.database.db.selectFrom('events').select('id as event_id').where('session_id', '=', paidSessionId).executeTakeFirstOrThrow();
    await record('webhook deliveries', async () => {
      await get('/webhooks/deliveries');
      await get('/webhooks/deliveries?offset=50');
      await get('/webhooks/attempts');
      await get(`/webhooks/attempts?merchant_id=${m.merchant_id}`);
      await get('/webhooks/attempts?outcome=succeeded&kind=initial');
      await get('/webhooks/attempts?event_type=checkout.session.completed');
      await get(`/webhooks/attempts?session_id=${paidSessionId}`);
      await get('/webhooks/attempts?since=2020-01-01T00:00:00Z');
      // An event's attempts are read through its deliveries (no index on the attempt's event_id, migration 0027).
      await get(`/webhooks/attempts?event_id=${event_id}`);
      await get(`/webhooks/attempts?event_id=${event_id}&outcome=succeeded`);
    });
    await record('exceptions', () => get(`/exceptions?${mq}`));
    await record('payments export', () => get(`/reports/payments.csv?${mq}&from=${new Date(Date.now() - 86_400_000).toISOString()}&to=${new Date(Date.now() + 86_400_000).toISOString()}`));

    const labels = new Set([...recorder.seen.values()].map((q) => q.label));
    // The recorder saw each area (a route that stopped querying would make this test vacuous).
    for (const l of ['sweeper', ...(onPostgres ? [] : ['search index']), 'reconcile', 'idempotency purge', 'dispatcher claim', 'sessions list', 'sessions search', 'sessions amount', 'invoices list', 'invoice summary writes', 'invoice summary fold', 'invoice detail', 'deposits list', 'audit list', 'webhook deliveries', 'payments export']) {
      expect(labels, l).toContain(l);
    }
    // SQLite: the searches read more than one range of the trigram index (0025), each explained below.
    if (!onPostgres) expect([...recorder.seen.values()].some((q) => q.label === 'sessions search' && /checkout_sessions_search_\d+ f\b/.test(q.sql))).toBe(true);
    // Statistics, as autovacuum keeps them on a live database: without any, every table looks
    // empty and PostgreSQL picks among equally cheap indexes at random.
    if (onPostgres) await sql`ANALYZE`.execute(t.database.db);
    const failures = await explainFailures(t.database.db, recorder);
    expect(failures, failures.join('\n\n')).toEqual([]);
  });
});
