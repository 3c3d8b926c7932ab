import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RECONCILE_AFTER_SECONDS, reconcileStuckAttempts } from '../../server/modules/payments/payments.service';
import { sandboxProviders } from '../../server/providers/index';
import { randomIds } from '../../server/lib/ids';
import type { CreatedIntegration } from '../../server/modules/integrations/integrations.service';
import { createTestApp, type TestContext } from '../support/app';
import { authorize, events, openSession, publicSession, startMomo } from '../support/checkout';

// A Mobile Money approval the provider accepted but never confirmed ("stuck", no callback) is
// settled by the server itself once it has waited long enough, so the merchant gets a final
// state and its webhook even when the payer closed the page.
describe('provider reconciliation of stuck Mobile Money approvals', () => {
  let t: TestContext;
  let m: CreatedIntegration;
  beforeAll(async () => {
    t = await createTestApp();
    m = await t.merchant();
  });
  afterAll(async () => t.close());

  const deps = () => ({ db: t.database.db, clock: t.clock, ids: randomIds, providers: sandboxProviders, outbox: t.outbox });

  it('leaves a fresh approval alone, then confirms it with the provider once it has waited', async () => {
    const s = await openSession(t, m);
    const a = await startMomo(t, s.id, '0240000004');
    expect((await authorize(t, s.id, a.attempt_reference, '123456')).json()).toMatchObject({ status: 'pending', raw_status: 'AWAITING_CALLBACK' });

    t.clock.advanceSeconds(RECONCILE_AFTER_SECONDS - 5);
    expect(await reconcileStuckAttempts(deps())).toBe(0);
    expect((await publicSession(t, s.id)).status).toBe('pending');

    t.clock.advanceSeconds(10);
    expect(await reconcileStuckAttempts(deps())).toBe(1);
    expect((await publicSession(t, s.id)).status).toBe('success');
    expect((await events(t, s.id)).map((e) => e.type)).toEqual(['checkout.session.completed']);
    // Nothing left to do, and nothing happens twice.
    expect(await reconcileStuckAttempts(deps())).toBe(0);
    expect(await events(t, s.id)).toHaveLength(1);
  });

  it('does not touch prompts still waiting for the payer', async () => {
    const s = await openSession(t, m);
    await startMomo(t, s.id, '0241234567');
    t.clock.advanceSeconds(RECONCILE_AFTER_SECONDS + 10);
    expect(await reconcileStuckAttempts(deps())).toBe(0);
    expect((await publicSession(t, s.id)).status).toBe('pending');
  });
});
