import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../support/app';
import { startSweeper } from '../../server/jobs/sweeper';
import { FOLD_BATCH, foldInvoiceSummaries } from '../../server/jobs/invoice-summary-fold';
import { randomIds } from '../../server/lib/ids';
import type { CreatedIntegration } from '../../server/modules/integrations/integrations.service';

/**
 * On SQLite every query is synchronous and Kysely's awaits are microtasks, so work that
 * only awaits queries never lets the event loop run. The sweeper's tick yields between its jobs,
 * and the invoice-summary fold between its batches: a callback queued before is run in between.
 * (On PostgreSQL every query is I/O, so these hold trivially.)
 */
describe('the sweeper lets the event loop run', () => {
  let t: TestContext;
  let m: CreatedIntegration;

  beforeAll(async () => {
    t = await createTestApp(); // no background jobs: the sweeper below is the only one
    m = await t.merchant('Yielding Sweeper');
  });
  afterAll(async () => t.close());

  it('between its jobs: a callback one job queues runs before the next job starts', async () => {
    let ran = false;
    const seen = await new Promise<boolean>((resolve, reject) => {
      let stop = () => {};
      const sweeper = startSweeper(t.database.db, { clock: t.clock, ids: randomIds, outbox: t.outbox }, 60_000, reject, [
        async () => {
          setImmediate(() => (ran = true));
        },
        async () => {
          stop();
          resolve(ran);
        },
      ]);
      stop = () => sweeper.stop();
    });
    expect(seen).toBe(true);
  });

  it('between fold batches: a backlog of more than one batch gives the loop a turn', async () => {
    const at = t.clock.now().toISOString();
    const deltas = Array.from({ length: FOLD_BATCH + 1 }, () => ({
      merchant_id: m.merchant_id,
      invoice_ref: 'YIELD-REF',
      sessions: 0,
      successes: 0,
      paid_minor: 0,
      first_success_at: null,
      sessions_updated_at: at,
      session_id: null,
      session_created_at: null,
      lines: 0,
    }));
    for (let i = 0; i < deltas.length; i += 100) await t.database.db.insertInto('invoice_summary_deltas').values(deltas.slice(i, i + 100)).execute();
    let ran = false;
    setImmediate(() => (ran = true));
    expect(await foldInvoiceSummaries(t.database.db, Number.POSITIVE_INFINITY)).toBe(FOLD_BATCH + 1);
    expect(ran).toBe(true);
  });
});
