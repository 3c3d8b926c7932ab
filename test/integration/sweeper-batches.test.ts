import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../support/app';
import { SWEEP_BATCH, sweep } from '../../server/jobs/sweeper';
import { randomIds } from '../../server/lib/ids';
import type { CreatedIntegration } from '../../server/modules/integrations/integrations.service';

/** The sweeper takes due rows in indexed batches of SWEEP_BATCH within a time budget. */
describe('sweeper batches', () => {
  let t: TestContext;
  let m: CreatedIntegration;

  beforeAll(async () => {
    t = await createTestApp();
    m = await t.merchant('Sweeper');
  });
  afterAll(async () => t.close());

  async function dueSessions(n: number): Promise<void> {
    const past = new Date(t.clock.now().getTime() - 60_000).toISOString();
    const rows = Array.from({ length: n }, () => ({
      id: `cs_test_${randomIds.token('', 24)}`,
      merchant_id: m.merchant_id,
      integration_id: m.integration_id,
      status: 'open' as const,
      amount_minor: 1000,
      currency: 'GHS',
      invoice_ref: 'SWEEP',
      metadata: '{}',
      expires_at: past,
      created_at: past,
      updated_at: past,
    }));
    for (let i = 0; i < rows.length; i += 100) await t.database.db.insertInto('checkout_sessions').values(rows.slice(i, i + 100)).execute();
  }

  const openCount = async () =>
    Number((await t.database.db.selectFrom('checkout_sessions').select((eb) => eb.fn.countAll().as('n')).where('status', '=', 'open').where('merchant_id', '=', m.merchant_id).executeTakeFirstOrThrow()).n);

  it('with its budget spent after one batch, a tick expires exactly one batch and leaves the rest to the next tick', async () => {
    await dueSessions(SWEEP_BATCH + 50);
    const deps = { clock: t.clock, ids: randomIds, outbox: t.outbox };
    const first = await sweep(t.database.db, deps, 0);
    expect(first.expiredSessions).toBe(SWEEP_BATCH);
    expect(await openCount()).toBe(50);
    const second = await sweep(t.database.db, deps, 0);
    expect(second.expiredSessions).toBe(50);
    expect(await openCount()).toBe(0);
  });

  it('within its budget, one tick drains a backlog of several batches, each session expired once with its event', async () => {
    await dueSessions(2 * SWEEP_BATCH + 30);
    const swept = await sweep(t.database.db, { clock: t.clock, ids: randomIds, outbox: t.outbox }, 60_000);
    expect(swept.expiredSessions).toBe(2 * SWEEP_BATCH + 30);
    expect(await openCount()).toBe(0);
    const events = await t.database.db
      .selectFrom('events')
      .innerJoin('checkout_sessions as s', 's.id', 'events.session_id')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('s.merchant_id', '=', m.merchant_id)
      .where('events.type', '=', 'checkout.session.expired')
      .executeTakeFirstOrThrow();
    expect(Number(events.n)).toBe(SWEEP_BATCH + 50 + 2 * SWEEP_BATCH + 30);
  });
});
