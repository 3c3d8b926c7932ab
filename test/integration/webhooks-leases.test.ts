import { hostname } from 'node:os';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDispatcher, type Dispatcher } from '../../server/modules/webhooks/dispatcher';
import { createLeases, ORPHAN_CHECK_MS, type Leases } from '../../server/modules/webhooks/leases';
import { createOutbox } from '../../server/modules/webhooks/outbox';
import { createTestApp, type TestContext } from '../support/app';
import { onPostgres } from '../support/database';
import { startLocalReceiver, type LocalReceiver } from '../support/local-receiver';
import { paidSession, until } from '../support/webhooks';

/**
 * Delivery leases between dispatchers of different instances (docs/architecture.md, "Several
 * instances"): a lease whose holder is dead is taken before it lapses, a live holder's is not,
 * a stopping dispatcher leaves nothing leased, and on PostgreSQL a write in one instance wakes
 * another's dispatcher through NOTIFY without waiting for its poll. Each dispatcher here has
 * its own outbox, as a separate process would.
 */
let t: TestContext;
let receiver: LocalReceiver;
const dispatchers: Dispatcher[] = [];
const holders: Leases[] = [];

beforeEach(async () => {
  t = await createTestApp();
  receiver = await startLocalReceiver();
});
afterEach(async () => {
  for (const d of dispatchers.splice(0)) await d.stop();
  for (const h of holders.splice(0)) await h.close();
  await receiver.close();
  await t.close();
});

/** A dispatcher as another instance runs it: its own outbox (no in-process wake-ups) and a long poll. */
async function otherInstance(pollIntervalMs = 60_000, opts: { shutdownGraceMs?: number } = {}): Promise<Dispatcher> {
  const d = createDispatcher({ db: t.database.db, clock: t.clock, outbox: createOutbox(), retryDelaysS: [1, 1, 1], attemptTimeoutMs: 5_000, pollIntervalMs, ...opts });
  dispatchers.push(d);
  await d.start();
  return d;
}

/** A paid session's delivery, leased by `owner` until long after the test. */
async function leasedTo(owner: string) {
  const m = await t.merchant(undefined, receiver.url);
  const { event } = await paidSession(t, m.api_key);
  const until = new Date(t.clock.now().getTime() + 3_600_000).toISOString();
  await t.database.db.updateTable('webhook_deliveries').set({ claimed_by: owner, locked_until: until }).where('event_id', '=', event.id).execute();
  return event;
}

const delivered = (eventId: string) => receiver.received.filter((r) => (JSON.parse(r.body.toString('utf8')) as { id: string }).id === eventId).length;

describe('webhook leases across instances', () => {
  it('takes the lease of a holder that no longer runs within ORPHAN_CHECK_MS, not when it lapses (an hour here)', async () => {
    // PostgreSQL: no connection holds this owner's liveness lock. SQLite: no such pid on this host.
    const event = await leasedTo(`${hostname()}:2147483646:deadbeef`);
    await otherInstance(200);
    const started = Date.now();
    await until('the dead holder\'s delivery is sent', async () => delivered(event.id) === 1, ORPHAN_CHECK_MS * 3);
    expect(Date.now() - started).toBeLessThan(ORPHAN_CHECK_MS * 3);
  });

  it('leaves the lease of a live holder alone, and takes it once that holder is gone', async () => {
    let owner: string;
    let holder: Leases | undefined;
    if (onPostgres) {
      // Another instance's dispatcher: its liveness lock is held on its own connection.
      holder = createLeases({ db: t.database.db, clock: t.clock, onWake: () => undefined });
      holders.push(holder);
      await holder.ready();
      owner = holder.owner;
    } else {
      owner = `${hostname()}:${process.pid === process.ppid ? 1 : process.ppid}:alive000`; // the test runner: alive
    }
    const event = await leasedTo(owner);
    await otherInstance(200);
    await new Promise((r) => setTimeout(r, ORPHAN_CHECK_MS * 2 + 500));
    expect(delivered(event.id), 'a live holder\'s lease is not taken').toBe(0);
    if (!holder) return; // SQLite: the test runner cannot die here
    await holder.close(); // the holder's connection goes: PostgreSQL drops its lock
    await until('taken once the holder is gone', async () => delivered(event.id) === 1, ORPHAN_CHECK_MS * 3);
  });

  it('a stopping dispatcher leaves nothing leased: another instance sends at once', async () => {
    receiver.respond = () => 'hang';
    const m = await t.merchant(undefined, receiver.url);
    const first = await otherInstance(50, { shutdownGraceMs: 200 });
    const { event } = await paidSession(t, m.api_key);
    await receiver.waitFor(1, 10_000); // the first dispatcher's attempt hangs, its lease held
    await first.stop();
    const row = await t.database.db.selectFrom('webhook_deliveries').selectAll().where('event_id', '=', event.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'pending', claimed_by: null, locked_until: null });
    expect(Date.parse(row.next_attempt_at!)).toBeLessThanOrEqual(t.clock.now().getTime());
    receiver.respond = () => ({ status: 200 });
    const started = Date.now();
    await otherInstance(onPostgres ? 60_000 : 200);
    await until('sent by the other instance', async () => delivered(event.id) >= 2, 5_000);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it.runIf(onPostgres)('a delivery written in one instance wakes another instance\'s dispatcher through NOTIFY, not its poll', async () => {
    await otherInstance(60_000); // would poll only after a minute
    await new Promise((r) => setTimeout(r, 300)); // its first look at the outbox is over
    const m = await t.merchant(undefined, receiver.url);
    const { event } = await paidSession(t, m.api_key); // through the app's own outbox: the other dispatcher is not subscribed
    const started = Date.now();
    await until('delivered through NOTIFY', async () => delivered(event.id) === 1, 3_000);
    expect(Date.now() - started).toBeLessThan(3_000);
  });
});
