import { createHmac } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDispatcher, type Dispatcher } from '../../server/modules/webhooks/dispatcher';
import { startLocalReceiver, unusedPort, type LocalReceiver } from '../support/local-receiver';
import { sweep } from '../../server/jobs/sweeper';
import { randomIds } from '../../server/lib/ids';
import {
  endpointHealth,
  getDelivery,
  listAttempts,
  listDeliveries,
  recoverFailedDeliveries,
  redeliverEvent,
  rotateEndpointSecret,
  ALL_MERCHANTS,
} from '../../server/modules/webhooks/webhooks.service';
import { verifyWebhook } from '../../shared/webhooks/verify';
import { createTestApp, type TestContext } from '../support/app';
import { createSession as createSessionFor, paidSession as paid, until } from '../support/webhooks';
import { onPostgres } from '../support/database';

/**
 * The dispatcher against a real receiver over HTTP on 127.0.0.1. Events come from real
 * terminal transitions (card payment over the public API, expiry by the sweeper); the
 * clock is a ManualClock, moved to make retries due.
 */

let t: TestContext;
let receiver: LocalReceiver;
let dispatcher: Dispatcher | undefined;
const extra: LocalReceiver[] = [];

beforeEach(async () => {
  t = await createTestApp();
  receiver = await startLocalReceiver();
});

afterEach(async () => {
  await dispatcher?.stop();
  dispatcher = undefined;
  await receiver.close();
  for (const r of extra.splice(0)) await r.close();
  await t.close();
});

async function startDispatcher(opts: { delays?: number[]; timeoutMs?: number } = {}): Promise<Dispatcher> {
  dispatcher = createDispatcher({
    db: t.database.db,
    clock: t.clock,
    outbox: t.outbox,
    retryDelaysS: opts.delays ?? [1, 1, 1],
    attemptTimeoutMs: opts.timeoutMs ?? 5_000,
    pollIntervalMs: 50,
  });
  await dispatcher.start();
  return dispatcher;
}

const paidSession = (apiKey: string, extraBody: Record<string, unknown> = {}) => paid(t, apiKey, extraBody);
const createSession = (apiKey: string) => createSessionFor(t, apiKey);

async function delivery(eventId: string) {
  return t.database.db.selectFrom('webhook_deliveries').selectAll().where('event_id', '=', eventId).executeTakeFirstOrThrow();
}

async function attempts(eventId: string) {
  return t.database.db.selectFrom('webhook_delivery_attempts').selectAll().where('event_id', '=', eventId).orderBy('seq').execute();
}

const header = (r: LocalReceiver, i: number, name: string) => String(r.received[i]!.headers[name]);

/** Moves the clock past the next retry and pokes the dispatcher. */
async function advance(seconds: number) {
  t.clock.advanceSeconds(seconds);
  dispatcher!.wake();
}

describe('webhook delivery', () => {
  it('delivers a completed event once, signed per docs/webhooks.md and per Standard Webhooks, with the exact stored body', async () => {
    const m = await t.merchant(undefined, receiver.url);
    const { session, event } = await paidSession(m.api_key, { metadata: { order: 'A-1', note: 'café' } });
    await startDispatcher();
    await receiver.waitFor(1);
    await dispatcher!.idle();

    const req = receiver.received[0]!;
    expect(req.method).toBe('POST');
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.headers['x-service-event-id']).toBe(event.id);
    expect(req.headers['x-service-event-type']).toBe('checkout.session.completed');
    expect(req.body.equals(Buffer.from(event.payload))).toBe(true);
    const body = JSON.parse(req.body.toString('utf8'));
    expect(body).toMatchObject({
      id: event.id,
      type: 'checkout.session.completed',
      data: { session: { id: session.id, status: 'success', amount_minor: 2500, currency: 'GHS', invoice_ref: session.invoice_ref, metadata: { order: 'A-1', note: 'café' } } },
    });

    // The receiver helper accepts it at the receiver's own clock …
    const sig = header(receiver, 0, 'x-service-signature');
    expect(await verifyWebhook(req.body, sig, m.webhook_secret!, { now: t.clock.now() })).toEqual({ ok: true, timestamp: expect.any(Number) });
    // … and an independent HMAC computed here agrees.
    const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(sig);
    expect(match).not.toBeNull();
    const [, ts, v1] = match!;
    expect(Number(ts)).toBe(Math.floor(t.clock.now().getTime() / 1000));
    expect(createHmac('sha256', m.webhook_secret!).update(`${ts}.`).update(req.body).digest('hex')).toBe(v1);
    // Standard Webhooks: id.timestamp.body, keyed with the base64 part of whsec_…
    expect(header(receiver, 0, 'webhook-id')).toBe(event.id);
    expect(header(receiver, 0, 'webhook-timestamp')).toBe(ts);
    const key = Buffer.from(m.webhook_secret!.slice('whsec_'.length), 'base64');
    const std = createHmac('sha256', key).update(`${event.id}.${ts}.`).update(req.body).digest('base64');
    expect(header(receiver, 0, 'webhook-signature')).toBe(`v1,${std}`);
    // A wrong secret does not verify.
    expect((await verifyWebhook(req.body, sig, 'whsec_wrong', { now: t.clock.now() })).ok).toBe(false);

    // Exactly once on a healthy receiver, even after more looks at the outbox.
    for (let i = 0; i < 3; i++) {
      dispatcher!.wake();
      await dispatcher!.idle();
    }
    await new Promise((r) => setTimeout(r, 200));
    expect(receiver.received).toHaveLength(1);
    const d = await delivery(event.id);
    expect(d).toMatchObject({ status: 'succeeded', attempt_count: 1, last_status_code: 200, next_attempt_at: null, claimed_by: null });
    const log = await attempts(event.id);
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ kind: 'initial', outcome: 'succeeded', status_code: 200, error: null, response_excerpt: '{"received":true}', url: receiver.url });
    expect(log[0]!.latency_ms).toBeGreaterThanOrEqual(0);
  });

  it('wakes on a new event without waiting for a poll and delivers expired events too', async () => {
    const m = await t.merchant(undefined, receiver.url);
    await startDispatcher();
    const s = await createSession(m.api_key);
    t.clock.advanceSeconds(24 * 3600 + 60); // past the default lifetime
    await sweep(t.database.db, { clock: t.clock, ids: randomIds, outbox: t.outbox });
    await receiver.waitFor(1);
    const body = JSON.parse(receiver.received[0]!.body.toString('utf8'));
    expect(body).toMatchObject({ type: 'checkout.session.expired', data: { session: { id: s.id, status: 'expired' } } });
    expect(header(receiver, 0, 'x-service-event-type')).toBe('checkout.session.expired');
  });

  it('retries a 500 after the configured delay with the same event id and byte-identical body, fresh t and signature', async () => {
    const m = await t.merchant(undefined, receiver.url);
    receiver.respond = (r) => (r.n === 1 ? { status: 500, body: 'boom '.repeat(400) } : { status: 204 });
    const { event } = await paidSession(m.api_key);
    await startDispatcher({ delays: [30, 60] });
    await receiver.waitFor(1);
    await dispatcher!.idle();
    let d = await delivery(event.id);
    expect(d).toMatchObject({ status: 'pending', attempt_count: 1, last_status_code: 500, last_error: 'receiver answered 500' });
    expect(Date.parse(d.next_attempt_at!) - t.clock.now().getTime()).toBe(30_000);

    await advance(10); // not yet due
    await dispatcher!.idle();
    expect(receiver.received).toHaveLength(1);
    await advance(21);
    await receiver.waitFor(2);
    await dispatcher!.idle();

    const [a, b] = receiver.received;
    expect(b!.headers['x-service-event-id']).toBe(a!.headers['x-service-event-id']);
    expect(b!.body.equals(a!.body)).toBe(true);
    expect(b!.headers['x-service-signature']).not.toBe(a!.headers['x-service-signature']);
    for (const r of [a!, b!]) {
      const res = await verifyWebhook(r.body, String(r.headers['x-service-signature']), m.webhook_secret!, { now: t.clock.now() });
      expect(res.ok).toBe(true);
    }
    d = await delivery(event.id);
    expect(d).toMatchObject({ status: 'succeeded', attempt_count: 2, last_status_code: 204 });
    const log = await attempts(event.id);
    expect(log.map((x) => [x.kind, x.outcome, x.status_code])).toEqual([
      ['initial', 'failed', 500],
      ['automatic_retry', 'succeeded', 204],
    ]);
    expect(log[0]!.response_excerpt!.length).toBeLessThanOrEqual(1025); // truncated excerpt
    expect(log[0]!.response_excerpt!.endsWith('…')).toBe(true);
    expect(receiver.received).toHaveLength(2);
  });

  it('marks the delivery failed after the last scheduled retry, and it shows in the log and the health summary', async () => {
    const m = await t.merchant(undefined, receiver.url);
    receiver.respond = () => ({ status: 502 });
    const { event, session } = await paidSession(m.api_key);
    await startDispatcher({ delays: [1, 2] });
    await receiver.waitFor(1);
    await dispatcher!.idle();
    await advance(1);
    await receiver.waitFor(2);
    await dispatcher!.idle();
    await advance(2);
    await receiver.waitFor(3);
    await dispatcher!.idle();
    const d = await delivery(event.id);
    expect(d).toMatchObject({ status: 'failed', attempt_count: 3, next_attempt_at: null, last_status_code: 502 });
    await advance(3600);
    await dispatcher!.idle();
    expect(receiver.received).toHaveLength(3);

    const failed = await listDeliveries(t.database.db, { status: 'failed', session_id: session.id }, ALL_MERCHANTS);
    expect(failed.deliveries).toHaveLength(1);
    const log = await listAttempts(t.database.db, { event_type: 'checkout.session.completed', session_id: session.id }, ALL_MERCHANTS);
    expect(log.attempts.map((a) => a.kind)).toEqual(['automatic_retry', 'automatic_retry', 'initial']);
    expect(log.attempts.every((a) => a.delivery_status === 'failed' && a.status_code === 502)).toBe(true);
    const page = await listAttempts(t.database.db, { session_id: session.id, limit: 2 }, ALL_MERCHANTS);
    expect(page.attempts).toHaveLength(2);
    const rest = await listAttempts(t.database.db, { session_id: session.id, limit: 2, cursor: page.next_cursor! }, ALL_MERCHANTS);
    expect(rest.attempts.map((a) => a.kind)).toEqual(['initial']);
    expect(rest.next_cursor).toBeNull();
    // Scoped to another merchant: nothing.
    expect((await listAttempts(t.database.db, { session_id: session.id }, { merchantId: 'someone-else' })).attempts).toHaveLength(0);

    const health = await endpointHealth(t.database.db, t.clock, { integrationId: m.integration_id, windowHours: 48 }, ALL_MERCHANTS);
    expect(health.endpoints[0]).toMatchObject({
      status: 'active',
      deliveries: { pending: 0, succeeded: 0, failed: 1 },
      attempts_in_window: 3,
      succeeded_in_window: 0,
      success_rate: 0,
      consecutive_failures: 3,
      last_error: 'receiver answered 502',
    });
  });

  it('times out a receiver that does not answer and retries it', async () => {
    const m = await t.merchant(undefined, receiver.url);
    receiver.respond = (r) => (r.n === 1 ? 'hang' : { status: 200 });
    const { event } = await paidSession(m.api_key);
    await startDispatcher({ timeoutMs: 300 });
    await receiver.waitFor(1);
    await until('the timed-out attempt', async () => (await attempts(event.id))[0]);
    const [first] = await attempts(event.id);
    expect(first).toMatchObject({ outcome: 'failed', status_code: null, error: 'timed out after 300 ms' });
    expect(first!.latency_ms).toBeGreaterThanOrEqual(250);
    expect(first!.latency_ms).toBeLessThan(5_000);
    await advance(1);
    await receiver.waitFor(2);
    await dispatcher!.idle();
    expect(await delivery(event.id)).toMatchObject({ status: 'succeeded', attempt_count: 2 });
  });

  it('retries after a refused connection and delivers once the receiver is back', async () => {
    const port = await unusedPort();
    const url = `http://127.0.0.1:${port}/hooks`;
    const m = await t.merchant(undefined, url);
    const { event } = await paidSession(m.api_key);
    await startDispatcher();
    const first = await until('the refused attempt', async () => (await attempts(event.id))[0]);
    expect(first).toMatchObject({ outcome: 'failed', status_code: null, error: 'connection refused (ECONNREFUSED)' });
    expect((await delivery(event.id)).status).toBe('pending');

    const back = await startLocalReceiver({ port, path: '/hooks' });
    extra.push(back);
    await advance(1);
    await back.waitFor(1);
    await dispatcher!.idle();
    expect(back.received[0]!.body.equals(Buffer.from(event.payload))).toBe(true);
    expect(await delivery(event.id)).toMatchObject({ status: 'succeeded', attempt_count: 2 });
  });

  it('waits for Retry-After on 429 when it is longer than the scheduled delay', async () => {
    const m = await t.merchant(undefined, receiver.url);
    receiver.respond = (r) => (r.n === 1 ? { status: 429, headers: { 'retry-after': '120' } } : { status: 200 });
    const { event } = await paidSession(m.api_key);
    await startDispatcher({ delays: [1, 1] });
    await receiver.waitFor(1);
    await dispatcher!.idle();
    const d = await delivery(event.id);
    expect(Date.parse(d.next_attempt_at!) - t.clock.now().getTime()).toBe(120_000);
    await advance(60);
    await dispatcher!.idle();
    expect(receiver.received).toHaveLength(1);
    await advance(61);
    await receiver.waitFor(2);
    await dispatcher!.idle();
    expect(await delivery(event.id)).toMatchObject({ status: 'succeeded' });
  });

  it('signs with both secrets during a rotation overlap and with the new one only after it', async () => {
    const m = await t.merchant(undefined, receiver.url);
    const endpoint = await t.database.db.selectFrom('webhook_endpoints').select('id').where('integration_id', '=', m.integration_id).executeTakeFirstOrThrow();
    const rotated = await rotateEndpointSecret(t.database.db, t.clock, randomIds, endpoint.id, { overlapHours: 24 }, ALL_MERCHANTS);
    expect(rotated.secret).not.toBe(m.webhook_secret);
    expect(Date.parse(rotated.previous_secret_expires_at!) - t.clock.now().getTime()).toBe(24 * 3600_000);
    await startDispatcher();

    await paidSession(m.api_key);
    await receiver.waitFor(1);
    const a = receiver.received[0]!;
    const sigA = String(a.headers['x-service-signature']);
    expect(sigA).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    expect(String(a.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect((await verifyWebhook(a.body, sigA, rotated.secret, { now: t.clock.now() })).ok).toBe(true);
    expect((await verifyWebhook(a.body, sigA, m.webhook_secret!, { now: t.clock.now() })).ok).toBe(true);
    // The first v1 is the new secret's.
    const ts = /t=(\d+)/.exec(sigA)![1];
    expect(sigA.split(',')[1]).toBe(`v1=${createHmac('sha256', rotated.secret).update(`${ts}.`).update(a.body).digest('hex')}`);

    t.clock.advanceSeconds(24 * 3600 + 1);
    await paidSession(m.api_key);
    await receiver.waitFor(2);
    const b = receiver.received[1]!;
    const sigB = String(b.headers['x-service-signature']);
    expect(sigB).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect((await verifyWebhook(b.body, sigB, rotated.secret, { now: t.clock.now() })).ok).toBe(true);
    expect(await verifyWebhook(b.body, sigB, m.webhook_secret!, { now: t.clock.now() })).toMatchObject({ ok: false, reason: 'signature_mismatch' });
  });

  it('redelivers one event on request (kind manual) and recovers every failed delivery since a time', async () => {
    const m = await t.merchant(undefined, receiver.url);
    const { event } = await paidSession(m.api_key);
    await startDispatcher({ delays: [1] });
    await receiver.waitFor(1);
    await dispatcher!.idle();

    const re = await redeliverEvent(t.database.db, t.clock, { eventId: event.id }, ALL_MERCHANTS, t.outbox);
    expect(re.deliveries).toHaveLength(1);
    await receiver.waitFor(2);
    await dispatcher!.idle();
    expect(receiver.received[1]!.body.equals(receiver.received[0]!.body)).toBe(true);
    expect(receiver.received[1]!.headers['x-service-event-id']).toBe(event.id);
    const detail = await getDelivery(t.database.db, re.deliveries[0]!.id, ALL_MERCHANTS);
    expect(detail.payload).toBe(event.payload);
    expect(detail.attempts.map((a) => a.kind)).toEqual(['initial', 'manual']);
    await expect(redeliverEvent(t.database.db, t.clock, { eventId: event.id }, { merchantId: 'other' })).rejects.toMatchObject({ code: 'NOT_FOUND' });

    // An outage: two events fail all their attempts.
    receiver.respond = () => ({ status: 503 });
    const since = t.clock.now().toISOString();
    const e2 = (await paidSession(m.api_key)).event;
    const e3 = (await paidSession(m.api_key)).event;
    await receiver.waitFor(4);
    await dispatcher!.idle();
    await advance(1);
    await receiver.waitFor(6);
    await dispatcher!.idle();
    expect((await delivery(e2.id)).status).toBe('failed');
    expect((await delivery(e3.id)).status).toBe('failed');

    receiver.respond = () => ({ status: 200 });
    const recovered = await recoverFailedDeliveries(t.database.db, t.clock, { since }, ALL_MERCHANTS, t.outbox);
    expect(recovered.recovered).toBe(2);
    await receiver.waitFor(8);
    await dispatcher!.idle();
    expect((await delivery(e2.id)).status).toBe('succeeded');
    expect((await delivery(e3.id)).status).toBe('succeeded');
    const manual = await listAttempts(t.database.db, { kind: 'manual', outcome: 'succeeded' }, ALL_MERCHANTS);
    expect(manual.attempts).toHaveLength(3);
    expect(receiver.received).toHaveLength(8);
  });

  it('graceful stop waits for an attempt in flight and records it', async () => {
    const m = await t.merchant(undefined, receiver.url);
    receiver.respond = () => ({ status: 200, delayMs: 400 });
    const { event } = await paidSession(m.api_key);
    await startDispatcher();
    await receiver.waitFor(1);
    expect(dispatcher!.inFlight()).toBe(1);
    await dispatcher!.stop();
    expect(await delivery(event.id)).toMatchObject({ status: 'succeeded', attempt_count: 1 });
  });

  it('a backlog larger than concurrency: never more attempts at once than `concurrency`, the next ones leased ahead (SQLite), each event delivered once and logged; a stop mid-backlog leaves nothing leased', async () => {
    const m = await t.merchant(undefined, receiver.url);
    receiver.respond = () => 'hang';
    const events = [];
    for (let i = 0; i < 14; i++) events.push((await paidSession(m.api_key)).event);
    const opts = { db: t.database.db, clock: t.clock, outbox: t.outbox, retryDelaysS: [1, 1, 1], attemptTimeoutMs: 5_000, pollIntervalMs: 50, concurrency: 3, shutdownGraceMs: 100 };
    const leased = async () => (await t.database.db.selectFrom('webhook_deliveries').select('id').where('claimed_by', 'is not', null).execute()).length;

    // Every attempt hangs: 3 at the receiver, and on SQLite 3 more leased, queued for the next free slot.
    const first = createDispatcher(opts);
    await first.start();
    await receiver.waitFor(3);
    await until('the claim ahead', async () => (await leased()) === (onPostgres ? 3 : 6));
    await new Promise((r) => setTimeout(r, 200));
    expect(receiver.received).toHaveLength(3);
    // Stopped mid-backlog: the hanging attempts are cut and recorded, and every lease is let go.
    await first.stop();
    expect(await leased()).toBe(0);
    expect((await t.database.db.selectFrom('webhook_delivery_attempts').select('id').execute()).length).toBe(3);

    // Answered after 15 ms: at most 3 at once, every event delivered once.
    let open = 0;
    let most = 0;
    receiver.respond = () => {
      most = Math.max(most, ++open);
      setTimeout(() => open--, 15);
      return { status: 200, delayMs: 15 };
    };
    dispatcher = createDispatcher(opts);
    await dispatcher.start();
    await until('all delivered', async () => (await t.database.db.selectFrom('webhook_deliveries').select('id').where('status', '=', 'succeeded').execute()).length === events.length);
    await dispatcher.idle();
    expect(most).toBeLessThanOrEqual(3);
    expect(most).toBeGreaterThan(1);
    const answered = receiver.received.slice(3).map((r) => String(r.headers['webhook-id']));
    expect(answered.sort()).toEqual(events.map((e) => e.id).sort());
    for (const e of events) {
      const log = await attempts(e.id);
      expect(log.filter((a) => a.outcome === 'succeeded')).toHaveLength(1);
      expect(await delivery(e.id)).toMatchObject({ status: 'succeeded', claimed_by: null, locked_until: null, last_status_code: 200 });
    }
    expect(await leased()).toBe(0);
  });

  /** A second active endpoint (secret `whsec_second`) on the merchant's integration, with its own local receiver. */
  async function secondEndpoint(integrationId: string) {
    const second = await startLocalReceiver();
    extra.push(second);
    const now = t.clock.now().toISOString();
    await t.database.db
      .insertInto('webhook_endpoints')
      .values({ id: randomIds.uuid(), integration_id: integrationId, url: second.url, secret: 'whsec_second', previous_secret: null, previous_secret_expires_at: null, status: 'active', disabled_reason: null, created_at: now, updated_at: now })
      .execute();
    return second;
  }

  it('fans out to every active endpoint of the integration', async () => {
    const m = await t.merchant(undefined, receiver.url);
    const second = await secondEndpoint(m.integration_id);
    const { event } = await paidSession(m.api_key);
    await startDispatcher();
    await receiver.waitFor(1);
    await second.waitFor(1);
    expect(second.received[0]!.headers['x-service-event-id']).toBe(event.id);
    expect((await verifyWebhook(second.received[0]!.body, String(second.received[0]!.headers['x-service-signature']), 'whsec_second', { now: t.clock.now() })).ok).toBe(true);
  });

  it('event ids are evt_ + 24 base62 in the order events were recorded; the log finds an event by id on every endpoint', async () => {
    const m = await t.merchant(undefined, receiver.url);
    const second = await secondEndpoint(m.integration_id);
    const events: string[] = [];
    for (let i = 0; i < 3; i++) {
      events.push((await paidSession(m.api_key)).event.id);
      t.clock.advance(i === 0 ? 1 : 62_000); // the next millisecond, then past a change of the 7th character
    }
    for (const id of events) expect(id).toMatch(/^evt_[0-9A-Za-z]{24}$/);
    expect(new Set(events).size).toBe(3);
    expect([...events].sort()).toEqual(events);
    await startDispatcher();
    await receiver.waitFor(3);
    await second.waitFor(3);
    await until('every attempt recorded', async () => (await listAttempts(t.database.db, {}, ALL_MERCHANTS)).attempts.length === 6);
    // The attempt log has no index on event_id (migration 0027): an event's attempts are found through its deliveries.
    const log = await listAttempts(t.database.db, { event_id: events[1]! }, ALL_MERCHANTS);
    expect(log.total).toBe(2);
    expect(log.attempts.map((a) => a.event_id)).toEqual([events[1], events[1]]);
    expect(new Set(log.attempts.map((a) => a.url))).toEqual(new Set([receiver.url, second.url]));
    expect((await listAttempts(t.database.db, { event_id: events[1]!, outcome: 'failed' }, ALL_MERCHANTS)).attempts).toHaveLength(0);
    expect((await listAttempts(t.database.db, { event_id: 'evt_none' }, ALL_MERCHANTS)).attempts).toHaveLength(0);
  });
});
