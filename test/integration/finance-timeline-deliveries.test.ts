import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Dispatcher } from '../../server/modules/webhooks/dispatcher';
import type { CreatedIntegration } from '../../server/modules/integrations/integrations.service';
import type { TimelineEntry } from '../../shared/schemas/backoffice';
import { createTestApp, type TestContext } from '../support/app';
import { call, staff, type Staff } from '../support/backoffice';
import { startLocalReceiver, type LocalReceiver } from '../support/local-receiver';
import { attemptsOf, deliveriesOf, paidSession, testDispatcher, until } from '../support/webhooks';

/**
 * The finance timeline words each notification to the merchant's server as a clerk reads it:
 * accepted, refused (with the HTTP status) or not reached, and then what comes next (a retry at a
 * given time, tried again, no more automatic retries), and a line for a notification held while
 * the merchant's notification address is switched off. No "webhook", no bare status code.
 */
let t: TestContext;
let receiver: LocalReceiver;
let dispatcher: Dispatcher | undefined;
let m: CreatedIntegration;
let fin: Staff;

beforeEach(async () => {
  t = await createTestApp();
  receiver = await startLocalReceiver();
  m = await t.merchant('Timeline Merchant', receiver.url);
  fin = await staff(t, 'finance', { merchantId: m.merchant_id });
});
afterEach(async () => {
  await dispatcher?.stop();
  dispatcher = undefined;
  await receiver.close();
  await t.close();
});

const start = async (delays: number[]) => {
  dispatcher = testDispatcher(t, { retryDelaysS: delays });
  await dispatcher.start();
};
async function deliveries(sessionId: string): Promise<TimelineEntry[]> {
  const res = await call(t, fin, 'GET', `/sessions/${sessionId}`);
  expect(res.statusCode, res.body).toBe(200);
  return (res.json() as { timeline: TimelineEntry[] }).timeline.filter((e) => e.kind === 'delivery');
}

describe('notifications in the finance timeline', () => {
  it('refused, then accepted: the failed attempt says it was tried again and when', async () => {
    let n = 0;
    receiver.respond = () => (++n === 1 ? { status: 503 } : { status: 200 });
    const { session, event } = await paidSession(t, m.api_key);
    await start([1, 1, 1]);
    await receiver.waitFor(1);
    await dispatcher!.idle();
    t.clock.advanceSeconds(2);
    dispatcher!.wake();
    await receiver.waitFor(2);
    await until('delivered', async () => (await deliveriesOf(t, event.id))[0]?.status === 'succeeded');
    const attempts = await attemptsOf(t, event.id);
    const lines = await deliveries(session.id);
    expect(lines.map((l) => l.code)).toEqual(['webhook_failed', 'webhook_delivered']);
    expect(lines[0]).toMatchObject({
      args: { type: 'checkout.session.completed', status_code: 503, reason: 'refused', then: 'retried', at: attempts[1]!.started_at },
      title: `Notification not accepted: payment completed, the merchant’s server refused it (HTTP 503); tried again at ${attempts[1]!.started_at}`,
    });
    expect(lines[1]).toMatchObject({ args: { type: 'checkout.session.completed' }, title: 'Merchant notified: payment completed, accepted by the merchant’s server' });
    for (const l of lines) expect(l.title).not.toMatch(/webhook/i);
  });

  it('refused with a retry due: "Notification held … will retry at"; when the retries run out, "no more automatic retries"', async () => {
    receiver.respond = () => ({ status: 500 });
    const { session, event } = await paidSession(t, m.api_key);
    await start([60]);
    await receiver.waitFor(1);
    await dispatcher!.idle();
    const due = (await deliveriesOf(t, event.id))[0]!.next_attempt_at!;
    expect(due).toEqual(expect.any(String));
    let lines = await deliveries(session.id);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      code: 'webhook_failed',
      args: { status_code: 500, reason: 'refused', then: 'retry', at: due },
      title: `Notification held: payment completed, the merchant’s server refused it (HTTP 500); will retry at ${due}`,
    });

    t.clock.advanceSeconds(61);
    dispatcher!.wake();
    await receiver.waitFor(2);
    await until('given up', async () => (await deliveriesOf(t, event.id))[0]?.status === 'failed');
    lines = await deliveries(session.id);
    expect(lines.map((l) => (l.args as { then: string }).then)).toEqual(['retried', 'gave_up']);
    expect(lines[1]).toMatchObject({ args: { at: null }, title: 'Notification not delivered: payment completed, the merchant’s server refused it (HTTP 500); no more automatic retries' });
  });

  it('not reached at all: the server could not be reached', async () => {
    // An address where nothing listens: the receiver is closed before the attempt.
    await receiver.close();
    const { session, event } = await paidSession(t, m.api_key);
    await start([60]);
    await until('attempted', async () => (await attemptsOf(t, event.id)).length === 1);
    await dispatcher!.idle();
    const [line] = await deliveries(session.id);
    expect(line).toMatchObject({ code: 'webhook_failed', args: { status_code: null, reason: 'unreachable', then: 'retry' } });
    expect(line!.title).toMatch(/^Notification held: payment completed, the merchant’s server could not be reached; will retry at /);
    receiver = await startLocalReceiver();
  });

  it('held while the notification address is switched off: a line of its own, no attempt needed', async () => {
    receiver.respond = () => ({ status: 410 });
    const first = await paidSession(t, m.api_key);
    await start([60]);
    await receiver.waitFor(1);
    await dispatcher!.idle();
    // The 410 switched the address off: this attempt's line, then the held line.
    const lines = await deliveries(first.session.id);
    expect(lines.map((l) => l.code)).toEqual(['webhook_failed', 'webhook_held']);
    expect(lines[0]).toMatchObject({ args: { status_code: 410, then: 'none' }, title: 'Notification not accepted: payment completed, the merchant’s server refused it (HTTP 410)' });
    expect(lines[1]).toMatchObject({ args: { type: 'checkout.session.completed' }, title: 'Notification held: payment completed, the merchant’s notification address is switched off; it will be sent once it is switched back on' });
    // A payment while it is off is held without any attempt.
    const later = await paidSession(t, m.api_key);
    dispatcher!.wake();
    await dispatcher!.idle();
    await until('held', async () => (await deliveriesOf(t, later.event.id))[0]?.held_at);
    expect((await deliveries(later.session.id)).map((l) => l.code)).toEqual(['webhook_held']);
  });
});
