import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Dispatcher } from '../../server/modules/webhooks/dispatcher';
import { startLocalReceiver, type LocalReceiver } from '../support/local-receiver';
import { ALL_MERCHANTS, disableEndpoint, endpointHealth, listDeliveries, redeliverEvent } from '../../server/modules/webhooks/webhooks.service';
import { createTestApp, type TestContext } from '../support/app';
import { runAdmin } from '../support/cli';
import { deliveriesOf, paidSession, testDispatcher, until } from '../support/webhooks';
import { call, staff } from '../support/backoffice';

/**
 * Webhook endpoints that answer 410: a disabled endpoint (by a 410 or by hand)
 * keeps its deliveries as held ones, events recorded meanwhile too; enabling it (back office
 * or CLI) sends them in event order. And a Retry-After cannot park a retry for a day.
 */

let t: TestContext;
let receiver: LocalReceiver;
let dispatcher: Dispatcher | undefined;

beforeEach(async () => {
  t = await createTestApp();
  receiver = await startLocalReceiver();
});

afterEach(async () => {
  await dispatcher?.stop();
  dispatcher = undefined;
  await receiver.close();
  await t.close();
});

const start = async (delays = [60]) => {
  dispatcher = testDispatcher(t, { retryDelaysS: delays });
  await dispatcher.start();
  return dispatcher;
};
const eventIdsReceived = () => receiver.received.map((r) => String(r.headers['x-service-event-id']));
const endpointOf = (integrationId: string) => t.database.db.selectFrom('webhook_endpoints').selectAll().where('integration_id', '=', integrationId).executeTakeFirstOrThrow();

describe('held deliveries', () => {
  it('a 410 disables the endpoint and holds that delivery and every later one; enabling in the back office sends them in event order', async () => {
    const m = await t.merchant(undefined, receiver.url);
    receiver.respond = () => ({ status: 410 });
    const first = await paidSession(t, m.api_key);
    await start();
    await receiver.waitFor(1);
    await dispatcher!.idle();
    const endpoint = await endpointOf(m.integration_id);
    expect(endpoint).toMatchObject({ status: 'disabled', disabled_reason: expect.stringMatching(/410/) });

    // Events while it is disabled: a held delivery each, never attempted.
    const later = [await paidSession(t, m.api_key), await paidSession(t, m.api_key)];
    t.clock.advanceSeconds(7200);
    dispatcher!.wake();
    await dispatcher!.idle();
    expect(receiver.received).toHaveLength(1);
    for (const e of [first, ...later]) expect(await deliveriesOf(t, e.event.id)).toMatchObject([{ status: 'pending', next_attempt_at: null, held_at: expect.any(String) }]);
    const listed = await listDeliveries(t.database.db, { endpoint_id: endpoint.id, status: 'held' }, ALL_MERCHANTS);
    expect(listed.deliveries.map((d) => d.status)).toEqual(['held', 'held', 'held']);
    // A held delivery is not redelivered behind the operator's back.
    await expect(redeliverEvent(t.database.db, t.clock, { eventId: first.event.id }, ALL_MERCHANTS)).rejects.toMatchObject({ code: 'STATE_CONFLICT' });

    // The back office shows how many are held.
    const admin = await staff(t, 'admin');
    const health = (await call(t, admin, 'GET', '/webhooks/endpoints/health')).json().endpoints[0];
    expect(health).toMatchObject({ status: 'disabled', deliveries: { held: 3, pending: 0, failed: 0 }, oldest_held_at: first.event.created_at });

    receiver.respond = () => ({ status: 200 });
    const enabled = await call(t, admin, 'POST', `/webhooks/endpoints/${endpoint.id}/enable`);
    expect(enabled.statusCode, enabled.body).toBe(200);
    expect(enabled.json()).toMatchObject({ status: 'active', released_deliveries: 3 });
    await receiver.waitFor(4);
    await dispatcher!.idle();
    expect(eventIdsReceived().slice(1)).toEqual([first.event.id, later[0]!.event.id, later[1]!.event.id]);
    for (const e of [first, ...later]) expect(await deliveriesOf(t, e.event.id)).toMatchObject([{ status: 'succeeded', held_at: null }]);
    const after = (await call(t, admin, 'GET', '/webhooks/endpoints/health')).json().endpoints[0];
    expect(after.deliveries).toEqual({ pending: 0, held: 0, succeeded: 3, failed: 0 });
  });

  it('sends released deliveries one at a time: the next waits for the previous answer', async () => {
    const m = await t.merchant(undefined, receiver.url);
    const endpoint = await endpointOf(m.integration_id);
    await disableEndpoint(t.database.db, t.clock, endpoint.id, 'maintenance', ALL_MERCHANTS);
    const events = [];
    for (let i = 0; i < 4; i++) events.push(await paidSession(t, m.api_key));
    let open = 0;
    let maxOpen = 0;
    receiver.respond = () => {
      maxOpen = Math.max(maxOpen, ++open);
      setTimeout(() => open--, 30);
      return { status: 200, delayMs: 30 };
    };
    await start();
    const res = await call(t, await staff(t, 'admin'), 'POST', `/webhooks/endpoints/${endpoint.id}/enable`);
    expect(res.json().released_deliveries).toBe(4);
    await receiver.waitFor(4);
    await dispatcher!.idle();
    expect(eventIdsReceived()).toEqual(events.map((e) => e.event.id));
    expect(maxOpen).toBe(1);
  });

  it('an endpoint disabled by hand holds its pending retries and new events; webhooks:enable sends them in order', async () => {
    const m = await t.merchant(undefined, receiver.url);
    receiver.respond = () => ({ status: 500 });
    const first = await paidSession(t, m.api_key);
    await start();
    await receiver.waitFor(1);
    await dispatcher!.idle();
    const endpoint = await endpointOf(m.integration_id);
    const disabled = await disableEndpoint(t.database.db, t.clock, endpoint.id, 'merchant asked to pause', ALL_MERCHANTS);
    expect(disabled).toMatchObject({ status: 'disabled', disabled_reason: 'merchant asked to pause' });
    expect(await deliveriesOf(t, first.event.id)).toMatchObject([{ status: 'pending', next_attempt_at: null, last_error: 'held: endpoint disabled: merchant asked to pause' }]);
    const second = await paidSession(t, m.api_key);
    expect(await deliveriesOf(t, second.event.id)).toMatchObject([{ status: 'pending', next_attempt_at: null, held_at: second.event.created_at }]);
    t.clock.advanceSeconds(3600);
    dispatcher!.wake();
    await dispatcher!.idle();
    expect(receiver.received).toHaveLength(1);

    receiver.respond = () => ({ status: 200 });
    const cli = await runAdmin(t.dataDir, ['webhooks:enable', '--endpoint', endpoint.id]);
    expect(cli.code, cli.stderr).toBe(0);
    expect(cli.stdout).toContain('2 held deliveries are being sent');
    await receiver.waitFor(3, 15_000);
    await dispatcher!.idle();
    expect(eventIdsReceived().slice(1)).toEqual([first.event.id, second.event.id]);
    await until('both delivered', async () => (await deliveriesOf(t, second.event.id))[0]!.status === 'succeeded');
    expect(await deliveriesOf(t, first.event.id)).toMatchObject([{ status: 'succeeded' }]);
  });

  it('an attempt in flight when the endpoint is disabled is held if it fails', async () => {
    const m = await t.merchant(undefined, receiver.url);
    receiver.respond = () => ({ status: 500, delayMs: 300 });
    const { event } = await paidSession(t, m.api_key);
    await start();
    await until('attempt in flight', async () => receiver.received.length === 1);
    await disableEndpoint(t.database.db, t.clock, (await endpointOf(m.integration_id)).id, 'pause', ALL_MERCHANTS);
    await dispatcher!.idle();
    expect(await deliveriesOf(t, event.id)).toMatchObject([{ status: 'pending', next_attempt_at: null, held_at: expect.any(String), attempt_count: 1 }]);
    const health = await endpointHealth(t.database.db, t.clock, {}, ALL_MERCHANTS);
    expect(health.endpoints[0]!.deliveries).toMatchObject({ held: 1, pending: 0 });
  });
});

describe('Retry-After cap', () => {
  it('a receiver asking for a day gets its retry one hour after the scheduled delay at the latest', async () => {
    const m = await t.merchant(undefined, receiver.url);
    receiver.respond = () => ({ status: 503, headers: { 'retry-after': '86400' } });
    const { event } = await paidSession(t, m.api_key);
    await start([5]);
    await receiver.waitFor(1);
    await dispatcher!.idle();
    const [d] = await deliveriesOf(t, event.id);
    expect(Date.parse(d!.next_attempt_at!) - t.clock.now().getTime()).toBe((5 + 3600) * 1000);
  });
});
