import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../support/app';
import { authorize, events, expectError, openSession, sessionRow, startMomo } from '../support/checkout';
import { composeDeps } from '../../server/compose';
import { randomIds } from '../../server/lib/ids';
import { RECONCILE_AFTER_SECONDS, reconcileStuckAttempts } from '../../server/modules/payments/payments.service';
import { sandboxProviders } from '../../server/providers/index';
import { sandboxMomo } from '../../server/providers/sandbox-momo';
import type { ProviderOutcome, RailProvider } from '../../server/providers/types';

/**
 * A Mobile Money provider whose authorize call does not answer until `answer()` is called
 * (never, unless a test does). Its status call reports the approval once the payer's code
 * reached it, as a real rail would after a slow callback.
 */
function hangingMomo() {
  let answer: (o: ProviderOutcome) => void = () => {};
  let entered: () => void = () => {};
  const called = new Promise<void>((resolve) => (entered = resolve));
  const provider: RailProvider = {
    ...sandboxMomo,
    authorize: () => {
      entered();
      return new Promise<ProviderOutcome>((resolve) => (answer = resolve));
    },
    refresh: async (a, now) => (a.raw_status === 'AUTHORIZING' ? { status: 'succeeded', rawStatus: 'SUCCESSFUL' } : sandboxMomo.refresh(a, now)),
  };
  return { provider, called, answer: (o: ProviderOutcome) => answer(o) };
}

describe('drill: a payment provider that hangs', () => {
  let t: TestContext | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('the request answers 503 PROVIDER_RAIL_UNAVAILABLE at the timeout, the attempt stays pending, and the reconcile job settles it', async () => {
    const momo = hangingMomo();
    const providers = { ...sandboxProviders, momo: momo.provider };
    t = await createTestApp({ providers, providerTimeoutMs: 200 });
    const m = await t.merchant('Hang Drill');
    const s = await openSession(t, m);
    const a = await startMomo(t, s.id);

    const err = expectError(await authorize(t, s.id, a.attempt_reference, '123456'), 503, 'PROVIDER_RAIL_UNAVAILABLE');
    expect(err.retry_after_seconds).toBe(30);
    const row = await t.database.db.selectFrom('payment_attempts').selectAll().where('id', '=', a.attempt_reference).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'pending', raw_status: 'AUTHORIZING' });
    expect((await sessionRow(t, s.id)).status).toBe('pending');
    // The code may have reached the provider: a second one is refused until the attempt is settled.
    expectError(await authorize(t, s.id, a.attempt_reference, '123456'), 409, 'PAYMENT_ATTEMPT_PENDING');
    // Meanwhile the server takes other work.
    const other = await openSession(t, m);
    expect((await sessionRow(t, other.id)).status).toBe('open');

    const deps = composeDeps({ db: t.database.db, clock: t.clock, ids: randomIds, config: t.config, logger: false, outbox: t.outbox, providers, providerTimeoutMs: 200 });
    expect(await reconcileStuckAttempts(deps)).toBe(0); // not stale yet
    t.clock.advanceSeconds(RECONCILE_AFTER_SECONDS);
    expect(await reconcileStuckAttempts(deps)).toBe(1);
    expect((await sessionRow(t, s.id)).status).toBe('success');
    expect((await events(t, s.id)).map((e) => e.type)).toEqual(['checkout.session.completed']);
  });

  it('no write lock is held while the provider is asked: sessions are created and other payments start meanwhile', async () => {
    const momo = hangingMomo();
    t = await createTestApp({ providers: { ...sandboxProviders, momo: momo.provider }, providerTimeoutMs: 60_000 });
    const m = await t.merchant('Hang Drill 2');
    const s = await openSession(t, m);
    const a = await startMomo(t, s.id);
    let answered = false;
    const pending = authorize(t, s.id, a.attempt_reference, '123456').then((r) => {
      answered = true;
      return r;
    });
    await momo.called;
    // Were the write transaction held across the call, these would wait for it (and time out).
    const other = await openSession(t, m);
    const started = await startMomo(t, other.id);
    expect(started.status).toBe('pending');
    expect(answered).toBe(false);
    momo.answer({ status: 'succeeded', rawStatus: 'SUCCESSFUL' });
    const done = await pending;
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json()).toMatchObject({ status: 'succeeded', session_status: 'success' });
  });
});
