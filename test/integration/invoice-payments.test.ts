import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Migrator, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../support/app';
import { get, post } from '../support/http';
import { events, expectError, openSession, payByCard, uniqueInvoice } from '../support/checkout';
import { call, staff, type Staff } from '../support/backoffice';
import { migrate, openDatabase } from '../../server/db/database';
import { migrations } from '../../server/db/migrations/index';
import type { CreatedIntegration } from '../../server/modules/integrations/integrations.service';

const INVOICE = '/api/v1/invoice-lines';

/** Paid means fully paid. Lines are remitted as far as the collected money covers them, in listing order. */
describe('invoices: paid means fully paid', () => {
  let t: TestContext;
  let m: CreatedIntegration;
  let finance: Staff;
  beforeAll(async () => {
    t = await createTestApp();
    m = await t.merchant('Accra Water Company');
    finance = await staff(t, 'finance', { merchantId: m.merchant_id });
    const sync = await post(t.app, '/api/v1/revenue-lines', { lines: [{ code: 'WATER', name: 'Water' }, { code: 'SEWER', name: 'Sewerage' }, { code: 'METER', name: 'Meter rent' }] }, { key: m.api_key });
    expect(sync.statusCode).toBe(200);
  });
  afterAll(async () => t.close());

  const ingest = (invoice_ref: string, lines: unknown[]) => post(t.app, INVOICE, { invoice_ref, currency: 'GHS', lines }, { key: m.api_key });
  const lines = async (ref: string) => (await get(t.app, `${INVOICE}?invoice_ref=${ref}`, m.api_key)).json() as { lines: Array<{ code: string; remitted: boolean }>; total_minor: number };
  const remitted = async (ref: string) => Object.fromEntries((await lines(ref)).lines.map((l) => [l.code, l.remitted]));
  const pay = async (ref: string, amount: number) => {
    const s = await openSession(t, m, { invoice_ref: ref, amount_minor: amount });
    expect((await payByCard(t, s.id, '4242424242424242')).json().session_status).toBe('success');
    return s.id;
  };
  const invoice = async (ref: string) => (await call(t, finance, 'GET', `/invoices/${encodeURIComponent(ref)}`)).json().invoice;

  /** WATER 60.00 recorded first, then SEWER 40.00: a 100.00 invoice. */
  async function twoLineInvoice(): Promise<string> {
    const ref = uniqueInvoice('PAY');
    expect((await ingest(ref, [{ code: 'WATER', amount_minor: 6000 }])).statusCode).toBe(200);
    t.clock.advanceSeconds(1);
    expect((await ingest(ref, [{ code: 'SEWER', amount_minor: 4000 }])).statusCode).toBe(200);
    return ref;
  }

  it('a 1.00 payment on a 100.00 invoice remits nothing, and the invoice still takes lines', async () => {
    const ref = await twoLineInvoice();
    await pay(ref, 100);
    expect(await remitted(ref)).toEqual({ WATER: false, SEWER: false });
    expect(await invoice(ref)).toMatchObject({ billed_minor: 10_000, paid_minor: 100, outstanding_minor: 9_900, remitted: false, remitted_at: null });
    const more = await ingest(ref, [{ code: 'METER', amount_minor: 500 }]);
    expect(more.statusCode, more.body).toBe(200);
    expect((await lines(ref)).total_minor).toBe(10_500);
  });

  it('lines are covered oldest first, each wholly before the next; a remitted line is frozen, the others may change', async () => {
    const ref = await twoLineInvoice();
    await pay(ref, 5_000);
    expect(await remitted(ref)).toEqual({ WATER: false, SEWER: false }); // 50.00 does not cover the 60.00 line; SEWER is not paid ahead of it
    await pay(ref, 1_500);
    expect(await remitted(ref)).toEqual({ WATER: true, SEWER: false });
    expect(await invoice(ref)).toMatchObject({ paid_minor: 6_500, outstanding_minor: 3_500, remitted: false });

    const changed = await ingest(ref, [{ code: 'WATER', amount_minor: 7000 }, { code: 'SEWER', amount_minor: 3000 }]);
    expect(changed.statusCode).toBe(207);
    expect(changed.json()).toMatchObject({ ingested: 1, billed_minor: 3000, errors: [{ index: 0, code: 'INVOICE_ALREADY_PAID', field: 'lines[0].code' }] });
    // Re-sending the paid line unchanged is safe; lowering SEWER to what is left over remits it.
    const resent = await ingest(ref, [{ code: 'WATER', amount_minor: 6000 }, { code: 'SEWER', amount_minor: 500 }]);
    expect(resent.statusCode, resent.body).toBe(200);
    expect(await remitted(ref)).toEqual({ WATER: true, SEWER: true });
    expect(await invoice(ref)).toMatchObject({ billed_minor: 6_500, paid_minor: 6_500, outstanding_minor: 0, remitted: true });
    expectError(await ingest(ref, [{ code: 'METER', amount_minor: 100 }]), 409, 'INVOICE_ALREADY_PAID');
  });

  it('the back-office invoice list shows paid and outstanding amounts and filters on fully paid', async () => {
    const ref = await twoLineInvoice();
    await pay(ref, 4_000);
    const row = (await call(t, finance, 'GET', `/invoices?q=${ref}`)).json().invoices[0];
    expect(row).toMatchObject({ invoice_ref: ref, billed_minor: 10_000, paid_minor: 4_000, outstanding_minor: 6_000, remitted: false });
    expect((await call(t, finance, 'GET', `/invoices?q=${ref}&remitted=false`)).json().total).toBe(1);
    await pay(ref, 6_000);
    expect((await call(t, finance, 'GET', `/invoices?q=${ref}&remitted=true`)).json().invoices[0]).toMatchObject({ paid_minor: 10_000, outstanding_minor: 0, remitted: true });
  });

  it('migration 0007 un-remits lines an old part-payment had marked paid, and keeps those the money covers', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'paydesk-0007-'));
    const d = openDatabase(join(dir, 'paydesk.sqlite'));
    try {
      const migrator = new Migrator({ db: d.db, provider: { getMigrations: async () => migrations } });
      expect((await migrator.migrateTo('0006_webhook_attempt_headers')).error).toBeUndefined();
      const at = '2026-06-01T10:00:00.000Z';
      await sql`INSERT INTO merchants (id, name, created_at) VALUES ('m1', 'Old Merchant', ${at})`.execute(d.db);
      await sql`INSERT INTO integrations (id, merchant_id, name, mode, allowed_rails, card_collection_mode, created_at) VALUES ('i1', 'm1', 'x', 'test', '["card"]', 'test_simulation', ${at})`.execute(d.db);
      const line = (id: string, ref: string, code: string, amount: number, created: string) =>
        sql`INSERT INTO invoice_lines (id, merchant_id, invoice_ref, code, name, amount_minor, currency, remitted, remitted_at, created_at, updated_at)
            VALUES (${id}, 'm1', ${ref}, ${code}, ${code}, ${amount}, 'GHS', 1, ${at}, ${created}, ${created})`.execute(d.db);
      const session = (id: string, ref: string, amount: number) =>
        sql`INSERT INTO checkout_sessions (id, merchant_id, integration_id, status, amount_minor, currency, invoice_ref, metadata, paid_rail, expires_at, created_at, updated_at, finalized_at)
            VALUES (${id}, 'm1', 'i1', 'success', ${amount}, 'GHS', ${ref}, '{}', 'card', ${at}, ${at}, ${at}, ${at})`.execute(d.db);
      await line('l1', 'PART', 'A', 6000, '2026-06-01T09:00:00.000Z');
      await line('l2', 'PART', 'B', 4000, '2026-06-01T09:00:01.000Z');
      await session('s1', 'PART', 7000);
      await line('l3', 'FULL', 'A', 1000, at);
      await session('s2', 'FULL', 1000);
      await migrate(d.db);
      const rows = await d.db.selectFrom('invoice_lines').select(['id', 'remitted', 'remitted_at']).orderBy('id').execute();
      expect(rows).toEqual([
        { id: 'l1', remitted: 1, remitted_at: at },
        { id: 'l2', remitted: 0, remitted_at: null },
        { id: 'l3', remitted: 1, remitted_at: at },
      ]);
    } finally {
      await d.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a second payment for a fully paid invoice still succeeds and its event goes out', async () => {
    const ref = await twoLineInvoice();
    await pay(ref, 10_000);
    const second = await pay(ref, 10_000);
    expect((await events(t, second)).map((e) => e.type)).toEqual(['checkout.session.completed']);
    expect(await invoice(ref)).toMatchObject({ paid_minor: 20_000, outstanding_minor: 0, remitted: true });
  });
});
