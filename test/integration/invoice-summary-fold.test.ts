import { join } from 'node:path';
import fc from 'fast-check';
import type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs, QueryResult, RootOperationNode, UnknownRow } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../support/app';
import { get, post } from '../support/http';
import { payByCard, sessionUrl } from '../support/checkout';
import { databaseUrls, onPostgres } from '../support/database';
import { connectDatabase, openDatabase, type Db } from '../../server/db/database';
import { rebuildInvoiceSummaries } from '../../server/domain/invoice-summary';
import { foldBatch, flushInvoiceSummaries } from '../../server/jobs/invoice-summary-fold';
import { storedSummaries, summariesFromBase } from '../support/invoice-summaries';
import type { CreatedIntegration } from '../../server/modules/integrations/integrations.service';

/**
 * The invoice summaries' delta log (migration 0021, server/jobs/invoice-summary-fold.ts): the
 * writers append deltas in their own transactions and folds run beside them in batches of any
 * size; once everything is folded the table equals both the JS aggregate of the base tables and
 * `invoices:rebuild`. A fold that fails part-way, or a process that dies before folding, loses
 * nothing: the deltas are in the database until the transaction that folds them commits.
 */
const REFS = ['F1', 'F2', 'F3'];

type Op = { k: 'create'; ref: number; amount: number } | { k: 'pay'; s: number; ok: boolean } | { k: 'ingest'; ref: number; amount: number } | { k: 'fold'; batch: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ k: fc.constant('create' as const), ref: fc.nat(2), amount: fc.integer({ min: 100, max: 20_000 }) }) },
  { weight: 3, arbitrary: fc.record({ k: fc.constant('pay' as const), s: fc.nat(), ok: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant('ingest' as const), ref: fc.nat(2), amount: fc.integer({ min: 1, max: 20_000 }) }) },
  { weight: 3, arbitrary: fc.record({ k: fc.constant('fold' as const), batch: fc.integer({ min: 1, max: 4 }) }) },
);

const pending = async (db: Db) => Number((await db.selectFrom('invoice_summary_deltas').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);

/** Fails every write to invoice_summaries: a fold that dies after deleting its deltas, before its commit. */
class FailSummaryWrites implements KyselyPlugin {
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    const node = args.node as { kind: string; into?: { table?: { identifier?: { name?: string } } } };
    if (node.kind === 'InsertQueryNode' && node.into?.table?.identifier?.name === 'invoice_summaries') throw new Error('fold interrupted');
    return args.node;
  }
  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}

describe('invoice summary deltas (migration 0021)', () => {
  let t: TestContext;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t?.close());

  async function setUp(name: string): Promise<CreatedIntegration> {
    const m = await t.merchant(name);
    expect((await post(t.app, '/api/v1/revenue-lines', { lines: [{ code: 'WTR', name: 'Water' }] }, { key: m.api_key })).statusCode).toBe(200);
    return m;
  }

  /** A card payment, unless the session is no longer payable (paid by a racing op, or its quote refused). */
  async function pay(id: string, ok: boolean): Promise<void> {
    const quote = await get(t.app, `${sessionUrl(id)}/quote`);
    const amount = quote.statusCode === 200 ? (quote.json() as { surcharges: Record<string, { total_minor: number } | undefined> }).surcharges.card?.total_minor : undefined;
    if (amount === undefined) return;
    await post(t.app, `${sessionUrl(id)}/card-payments`, { amount_minor: amount, card_number: ok ? '4242424242424242' : '4000000000000002', expiry_month: 12, expiry_year: 2099, cvc: '123' });
  }

  it('fold to what a rebuild gives, whatever the interleaving of writers and folds', async () => {
    let runs = 0;
    let folds = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(op, { minLength: 1, maxLength: 6 }), { minLength: 2, maxLength: 6 }), async (rounds) => {
        const m = await setUp(`Fold ${++runs}`);
        const sessions: string[] = [];
        for (const round of rounds) {
          // Each round's writes and folds at once: on PostgreSQL they run side by side on the pool.
          await Promise.all(
            round.map(async (o) => {
              if (o.k === 'create') {
                const res = await post(t.app, '/api/v1/sessions', { amount_minor: o.amount, invoice_ref: REFS[o.ref] }, { key: m.api_key });
                expect(res.statusCode).toBe(201);
                sessions.push((res.json() as { id: string }).id);
              } else if (o.k === 'pay') {
                const id = sessions[o.s % Math.max(1, sessions.length)];
                if (id) await pay(id, o.ok);
              } else if (o.k === 'ingest') {
                await post(t.app, '/api/v1/invoice-lines', { invoice_ref: REFS[o.ref], currency: 'GHS', lines: [{ code: 'WTR', amount_minor: o.amount }] }, { key: m.api_key });
              } else {
                folds += await foldBatch(t.database.db, o.batch);
              }
            }),
          );
        }
        await flushInvoiceSummaries(t.database.db);
        expect(await pending(t.database.db)).toBe(0);
        const folded = await storedSummaries(t.database.db, m.merchant_id);
        expect(folded).toEqual(await summariesFromBase(t.database.db, m.merchant_id));
        await rebuildInvoiceSummaries(t.database.db);
        expect(await storedSummaries(t.database.db, m.merchant_id)).toEqual(folded);
      }),
      { seed: 21, numRuns: 15 },
    );
    // Folds ran between the writes, not only at the end.
    expect(folds).toBeGreaterThan(10);
  }, 300_000);

  it('lose nothing when a fold fails part-way or the process dies before folding', async () => {
    const m = await setUp('Crash');
    for (let i = 0; i < 3; i++) {
      const res = await post(t.app, '/api/v1/sessions', { amount_minor: 1_000 + i, invoice_ref: 'CRASH' }, { key: m.api_key });
      expect(res.statusCode).toBe(201);
      if (i === 0) expect((await payByCard(t, (res.json() as { id: string }).id, '4242424242424242')).statusCode).toBe(201);
    }
    await post(t.app, '/api/v1/invoice-lines', { invoice_ref: 'CRASH', currency: 'GHS', lines: [{ code: 'WTR', amount_minor: 5_000 }] }, { key: m.api_key });
    const deltas = await pending(t.database.db);
    expect(deltas).toBeGreaterThanOrEqual(5); // 3 created, 1 paid, the lines (and the reallocation's)
    const before = await storedSummaries(t.database.db, m.merchant_id);

    // The fold's transaction dies after deleting the deltas, at the first summary write: rolled back whole.
    await expect(foldBatch(t.database.db.withPlugin(new FailSummaryWrites()))).rejects.toThrow(/fold interrupted/);
    expect(await pending(t.database.db)).toBe(deltas);
    expect(await storedSummaries(t.database.db, m.merchant_id)).toEqual(before);

    // A new process on the same database (this one "died" without folding): the deltas are there, and fold to the truth.
    const other = onPostgres ? connectDatabase({ databaseUrl: databaseUrls.get(t.dataDir)!, databaseFile: '' }) : openDatabase(join(t.dataDir, 'paydesk.sqlite'));
    try {
      expect(await pending(other.db)).toBe(deltas);
      expect(await flushInvoiceSummaries(other.db)).toBe(deltas);
    } finally {
      await other.close();
    }
    const [row] = await storedSummaries(t.database.db, m.merchant_id);
    expect(row).toMatchObject({ invoice_ref: 'CRASH', session_count: 3, success_count: 1, line_count: 1, billed_minor: 5_000 });
    expect(await storedSummaries(t.database.db, m.merchant_id)).toEqual(await summariesFromBase(t.database.db, m.merchant_id));
  });
});
