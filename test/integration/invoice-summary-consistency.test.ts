import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../support/app';
import { get, post } from '../support/http';
import { call, staff, type Staff } from '../support/backoffice';
import { sessionUrl } from '../support/checkout';
import { sweep } from '../../server/jobs/sweeper';
import { rebuildInvoiceSummaries } from '../../server/domain/invoice-summary';
import { flushInvoiceSummaries } from '../../server/jobs/invoice-summary-fold';
import { transactionRetries } from '../../server/db/postgres';
import { randomIds } from '../../server/lib/ids';
import { storedSummaries, summariesFromBase } from '../support/invoice-summaries';
import type { CreatedIntegration } from '../../server/modules/integrations/integrations.service';

/**
 * `invoice_summaries` (migration 0017) is kept by the transactions that write lines and
 * sessions. Random sequences of line ingests, session creations, payments on every rail (Mobile
 * Money approved or declined, card approved or declined, cash deposit approved or rejected, bank
 * transfer confirmed), clock moves with the sweeper's expiries, and reads that expire a due
 * session, all over HTTP; after every step the table must equal what the base tables give
 * when aggregated from scratch here (in JS), and the back-office list must show those numbers.
 * The writers append deltas (migration 0021) that a background job folds: the list, read first,
 * folds what is pending (read-your-writes), after which no delta is left and the table is compared.
 */
const REFS = ['A', 'B', 'C', 'D'];
const CODES = ['WTR', 'SEW', 'MTR'];

type Op =
  | { k: 'ingest'; ref: number; lines: Array<{ code: number; amount: number }> }
  | { k: 'create'; ref: number; amount: number; usd: boolean; expires: number }
  | { k: 'card'; s: number; ok: boolean }
  | { k: 'momo'; s: number; ok: boolean }
  | { k: 'cash'; s: number; ok: boolean }
  | { k: 'bank'; s: number }
  | { k: 'time'; seconds: number }
  | { k: 'read'; s: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ k: fc.constant('ingest' as const), ref: fc.nat(3), lines: fc.array(fc.record({ code: fc.nat(2), amount: fc.integer({ min: 1, max: 20_000 }) }), { minLength: 1, maxLength: 3 }) }) },
  { weight: 4, arbitrary: fc.record({ k: fc.constant('create' as const), ref: fc.nat(3), amount: fc.integer({ min: 100, max: 20_000 }), usd: fc.boolean(), expires: fc.integer({ min: 60, max: 900 }) }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant('card' as const), s: fc.nat(), ok: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant('momo' as const), s: fc.nat(), ok: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant('cash' as const), s: fc.nat(), ok: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant('bank' as const), s: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('time' as const), seconds: fc.integer({ min: 1, max: 300 }) }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('read' as const), s: fc.nat() }) },
);

describe('invoice summaries equal the base tables after any sequence of writes', () => {
  let t: TestContext;
  let admin: Staff;
  let teller: Staff;
  let supervisor: Staff;
  beforeAll(async () => {
    t = await createTestApp();
    admin = await staff(t, 'admin');
    teller = await staff(t, 'teller');
    supervisor = await staff(t, 'supervisor');
  });
  afterAll(async () => t?.close());

  async function check(m: CreatedIntegration, step: string): Promise<void> {
    const list = (await call(t, admin, 'GET', `/invoices?merchant_id=${m.merchant_id}&limit=200&sort=invoice_ref&dir=asc`)).json() as { invoices: unknown[]; total: number };
    expect(await pendingDeltas(), step).toBe(0);
    const expected = await summariesFromBase(t.database.db, m.merchant_id);
    expect(await storedSummaries(t.database.db, m.merchant_id), step).toEqual(expected);
    expect(list.total, step).toBe(expected.length);
    expect(list.invoices, step).toEqual(
      // Every key here is a test key: each invoice is a test one, its counts all test-mode.
      expected.map((e) => ({
        invoice_ref: e.invoice_ref,
        mode: 'test',
        currency: e.line_currency ?? e.latest_session_currency ?? 'GHS',
        line_count: e.line_count,
        billed_minor: e.billed_minor,
        paid_minor: e.paid_minor,
        outstanding_minor: Math.max(0, e.billed_minor - e.paid_minor),
        remitted: e.remitted_at !== null,
        remitted_at: e.remitted_at,
        latest_session_status: e.latest_session_status,
        updated_at: e.updated_at,
        payment_state: e.line_count === 0 ? 'nothing_billed' : e.paid_minor === 0 ? 'not_paid' : e.paid_minor < e.billed_minor ? 'part_paid' : e.paid_minor === e.billed_minor ? 'paid' : 'overpaid',
        overpaid_minor: e.line_count > 0 ? Math.max(0, e.paid_minor - e.billed_minor) : 0,
        has_exception: e.success_count > 1 || (e.success_count === 1 && e.line_count > 0 && e.paid_minor !== e.billed_minor),
      })),
    );
  }

  const pendingDeltas = async () => Number((await t.database.db.selectFrom('invoice_summary_deltas').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);

  const quote = async (id: string, rail: string): Promise<number | null> => {
    const res = await get(t.app, `${sessionUrl(id)}/quote`);
    if (res.statusCode !== 200) return null;
    return (res.json() as { surcharges: Record<string, { total_minor: number } | undefined> }).surcharges[rail]?.total_minor ?? null;
  };

  async function run(m: CreatedIntegration, o: Op, sessions: string[]): Promise<void> {
    // The newest sessions first: older ones are mostly paid or expired by then.
    const pick = (s: number) => sessions[sessions.length - 1 - (s % Math.min(3, sessions.length))];
    switch (o.k) {
      case 'ingest': {
        const lines = o.lines.map((l) => ({ code: CODES[l.code], amount_minor: l.amount }));
        await post(t.app, '/api/v1/invoice-lines', { invoice_ref: REFS[o.ref], currency: 'GHS', lines }, { key: m.api_key });
        return;
      }
      case 'create': {
        const res = await post(t.app, '/api/v1/sessions', { amount_minor: o.amount, invoice_ref: REFS[o.ref], currency: o.usd ? 'USD' : 'GHS', expires_in_seconds: o.expires }, { key: m.api_key });
        if (res.statusCode === 201) sessions.push((res.json() as { id: string }).id);
        return;
      }
      case 'time':
        t.clock.advanceSeconds(o.seconds);
        await sweep(t.database.db, { clock: t.clock, ids: randomIds, outbox: t.outbox });
        return;
      default:
        break;
    }
    const id = pick(o.s);
    if (!id) return;
    if (o.k === 'read') {
      await get(t.app, sessionUrl(id));
    } else if (o.k === 'card') {
      const amount = await quote(id, 'card');
      if (amount === null) return;
      await post(t.app, `${sessionUrl(id)}/card-payments`, { amount_minor: amount, card_number: o.ok ? '4242424242424242' : '4000000000000002', expiry_month: 12, expiry_year: 2099, cvc: '123' });
    } else if (o.k === 'momo') {
      const amount = await quote(id, 'momo');
      if (amount === null) return;
      const a = await post(t.app, `${sessionUrl(id)}/provider-attempts`, { rail: 'momo', amount_minor: amount, operator: 'mtn', phone: '0241234567' });
      if (a.statusCode !== 201) return;
      await post(t.app, `${sessionUrl(id)}/provider-attempts/${(a.json() as { attempt_reference: string }).attempt_reference}/authorize`, { code: o.ok ? '123456' : '000000' });
    } else if (o.k === 'bank') {
      const amount = await quote(id, 'bank_transfer');
      if (amount === null) return;
      const a = await post(t.app, `${sessionUrl(id)}/provider-attempts`, { rail: 'bank_transfer', amount_minor: amount, account_name: 'Esi Owusu' });
      if (a.statusCode !== 201) return;
      const ref = (a.json() as { instructions: { payment_reference: string } }).instructions.payment_reference;
      await call(t, admin, 'POST', '/admin/sandbox/bank-transfers', { payment_reference: ref, amount_minor: amount });
    } else {
      const amount = await quote(id, 'cash');
      if (amount === null) return;
      const slip = await post(t.app, '/api/v1/checkout/cash-slips', { session_id: id, amount_minor: amount });
      if (slip.statusCode !== 201) return;
      const dep = await call(t, teller, 'POST', `/cash-slips/${(slip.json() as { slip_token: string }).slip_token}/deposits`, { amount_minor: amount });
      if (dep.statusCode !== 201) return;
      const depositId = (dep.json() as { id: string }).id;
      await call(t, supervisor, 'POST', `/deposits/${depositId}/${o.ok ? 'approve' : 'reject'}`, o.ok ? undefined : { reason: 'short' });
    }
  }

  it('random ingests, creations, payments on every rail and expiries', async () => {
    let runs = 0;
    let paid = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 5, maxLength: 30 }), async (ops) => {
        const m = await t.merchant(`Consistency ${++runs}`);
        expect((await post(t.app, '/api/v1/revenue-lines', { lines: CODES.map((code) => ({ code, name: code })) }, { key: m.api_key })).statusCode).toBe(200);
        const sessions: string[] = [];
        for (const [i, o] of ops.entries()) {
          await run(m, o, sessions);
          await check(m, `step ${i} ${JSON.stringify(o)}`);
        }
        paid += Number((await t.database.db.selectFrom('invoice_summaries').select((eb) => eb.fn.sum<number>('success_count').as('n')).where('merchant_id', '=', m.merchant_id).executeTakeFirstOrThrow()).n ?? 0);
      }),
      { seed: 18, numRuns: 30 },
    );
    // The sequences reached payments (the property would hold vacuously on sessions that never succeed).
    expect(paid).toBeGreaterThan(20);
  }, 300_000);

  it('concurrent creations and payments on one invoice reference all land in its summary row (creations meet on no row: on PostgreSQL none is retried)', async () => {
    const m = await t.merchant('Hot invoice');
    const retries = transactionRetries.count;
    const created = await Promise.all(
      Array.from({ length: 20 }, () => post(t.app, '/api/v1/sessions', { amount_minor: 500, invoice_ref: 'HOT' }, { key: m.api_key })),
    );
    expect(created.map((r) => r.statusCode)).toEqual(Array(20).fill(201));
    // Each creation appends a delta instead of upserting the one summary row (migration 0021).
    expect(transactionRetries.count - retries).toBe(0);
    expect(await pendingDeltas()).toBe(20);
    const ids = created.map((r) => (r.json() as { id: string }).id);
    const paid = await Promise.all(
      ids.slice(0, 10).map(async (id) => post(t.app, `${sessionUrl(id)}/card-payments`, { amount_minor: (await quote(id, 'card')) ?? 0, card_number: '4242424242424242', expiry_month: 12, expiry_year: 2099, cvc: '123' })),
    );
    expect(paid.map((r) => r.statusCode)).toEqual(Array(10).fill(201));
    await flushInvoiceSummaries(t.database.db);
    const [row] = await storedSummaries(t.database.db, m.merchant_id);
    expect(row).toMatchObject({ session_count: 20, success_count: 10, paid_minor: 5_000 });
    expect(await storedSummaries(t.database.db, m.merchant_id)).toEqual(await summariesFromBase(t.database.db, m.merchant_id));
  });

  it('invoices:rebuild recomputes the same rows from the base tables', async () => {
    const before = await t.database.db.selectFrom('invoice_summaries').selectAll().orderBy('merchant_id').orderBy('invoice_ref').execute();
    expect(before.length).toBeGreaterThan(0);
    await t.database.db.updateTable('invoice_summaries').set({ paid_minor: -1, session_count: 0 }).execute();
    expect(await rebuildInvoiceSummaries(t.database.db)).toBe(before.length);
    expect(await t.database.db.selectFrom('invoice_summaries').selectAll().orderBy('merchant_id').orderBy('invoice_ref').execute()).toEqual(before);
  });
});
