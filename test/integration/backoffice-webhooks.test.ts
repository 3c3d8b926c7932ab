import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDispatcher, type Dispatcher } from '../../server/modules/webhooks/dispatcher';
import { startLocalReceiver, type LocalReceiver } from '../support/local-receiver';
import type { CreatedIntegration } from '../../server/modules/integrations/integrations.service';
import { createTestApp, type TestContext } from '../support/app';
import { call, errorCode, sessionWithSlip, staff, type Staff } from '../support/backoffice';

describe('back-office webhooks screen API: delivery log, redelivery, recovery, endpoint health', () => {
  let t: TestContext;
  let receiver: LocalReceiver;
  let dispatcher: Dispatcher;
  let a: CreatedIntegration;
  let b: CreatedIntegration;
  let finA: Staff;
  let admin: Staff;
  let sup: Staff;
  let teller: Staff;
  const events: Record<string, string> = {};

  async function paid(m: CreatedIntegration, key: string) {
    const slip = await sessionWithSlip(t, m);
    const dep = (await call(t, teller, 'POST', `/cash-slips/${slip.slip_token}/deposits`, { amount_minor: slip.amount_minor })).json().deposit.id;
    expect((await call(t, sup, 'POST', `/deposits/${dep}/approve`)).statusCode).toBe(200);
    const ev = await t.database.db.selectFrom('events').select('id').where('session_id', '=', slip.session_id).executeTakeFirstOrThrow();
    events[key] = ev.id;
  }

  beforeAll(async () => {
    t = await createTestApp();
    receiver = await startLocalReceiver({ respond: () => ({ status: 200, headers: { 'x-receiver-trace': 'trace-42' }, body: '{"received":true}' }) });
    a = await t.merchant('Hooks A', receiver.url);
    b = await t.merchant('Hooks B', receiver.url);
    finA = await staff(t, 'finance', { merchantId: a.merchant_id });
    admin = await staff(t, 'admin');
    sup = await staff(t, 'supervisor');
    teller = await staff(t, 'teller');
    await paid(a, 'a');
    await paid(b, 'b');
    dispatcher = createDispatcher({ db: t.database.db, clock: t.clock, outbox: t.outbox, retryDelaysS: [1], pollIntervalMs: 20 });
    await dispatcher.start();
    await dispatcher.idle();
  });
  afterAll(async () => {
    await dispatcher.stop();
    await receiver.close();
    await t.close();
  });

  it('finance sees its own merchant’s delivery log only; admins see all or one merchant', async () => {
    const own = await call(t, finA, 'GET', '/webhooks/attempts');
    expect(own.statusCode).toBe(200);
    const attempts = own.json().attempts as Array<{ event_id: string; outcome: string; status_code: number; url: string }>;
    expect(attempts.map((x) => x.event_id)).toEqual([events.a]);
    expect(attempts[0]).toMatchObject({ outcome: 'succeeded', status_code: 200, url: receiver.url });
    expect((await call(t, finA, 'GET', `/webhooks/attempts?merchant_id=${b.merchant_id}`)).statusCode).toBe(404);
    const all = (await call(t, admin, 'GET', '/webhooks/attempts')).json().attempts as Array<{ event_id: string }>;
    expect(all.map((x) => x.event_id).sort()).toEqual([events.a, events.b].sort());
    const onlyB = (await call(t, admin, 'GET', `/webhooks/attempts?merchant_id=${b.merchant_id}`)).json().attempts as Array<{ event_id: string }>;
    expect(onlyB.map((x) => x.event_id)).toEqual([events.b]);
  });

  it('shows one delivery with its exact body and attempts; another merchant’s is 404', async () => {
    const deliveries = (await call(t, admin, 'GET', '/webhooks/deliveries')).json().deliveries as Array<{ id: string; event_id: string }>;
    const da = deliveries.find((d) => d.event_id === events.a)!;
    const db = deliveries.find((d) => d.event_id === events.b)!;
    const detail = await call(t, finA, 'GET', `/webhooks/deliveries/${da.id}`);
    expect(detail.statusCode).toBe(200);
    expect(JSON.parse(detail.json().payload).id).toBe(events.a);
    expect(detail.json().attempts).toHaveLength(1);
    // Each attempt keeps the exact request headers sent and the receiver's answer headers.
    const sent = receiver.received.find((r) => r.body.toString('utf8').includes(events.a!))!;
    const at = detail.json().attempts[0] as { request_headers: Record<string, string>; response_headers: Record<string, string> };
    expect(at.request_headers['x-service-event-id']).toBe(events.a);
    expect(at.request_headers['x-service-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(at.request_headers['x-service-signature']).toBe(sent.headers['x-service-signature']);
    expect(at.request_headers['webhook-signature']).toBe(sent.headers['webhook-signature']);
    expect(at.request_headers['content-type']).toBe('application/json');
    // Only the allow-listed answer headers are kept: a receiver's own headers are not stored.
    expect(at.response_headers['x-receiver-trace']).toBeUndefined();
    expect(at.response_headers['content-type']).toBe('application/json');
    expect(Object.keys(at.response_headers).every((h) => ['content-type', 'content-length', 'date', 'server', 'retry-after', 'location', 'x-request-id'].includes(h))).toBe(true);
    const stored = await t.database.db.selectFrom('webhook_delivery_attempts').select(['request_headers', 'response_headers']).where('delivery_id', '=', da.id).executeTakeFirstOrThrow();
    expect(JSON.parse(stored.request_headers!)).toEqual(at.request_headers);
    expect(JSON.parse(stored.response_headers!)).toEqual(at.response_headers);
    expect((await call(t, finA, 'GET', `/webhooks/deliveries/${db.id}`)).statusCode).toBe(404);
  });

  it('sorts the delivery log on the server and pages it by offset, with a total', async () => {
    type Row = { id: string; latency_ms: number };
    const newest = (await call(t, admin, 'GET', '/webhooks/attempts')).json() as { attempts: Row[]; total: number };
    expect(newest.total).toBe(newest.attempts.length);
    expect(newest.total).toBeGreaterThanOrEqual(2);
    const oldestFirst = (await call(t, admin, 'GET', '/webhooks/attempts?sort=started_at&dir=asc')).json() as { attempts: Row[]; total: number; next_cursor: string | null };
    expect(oldestFirst.attempts.map((x) => x.id)).toEqual([...newest.attempts].reverse().map((x) => x.id));
    expect(oldestFirst.next_cursor).toBeNull();
    const page2 = (await call(t, admin, 'GET', '/webhooks/attempts?sort=started_at&dir=asc&limit=1&offset=1')).json() as { attempts: Row[]; total: number };
    expect(page2.attempts.map((x) => x.id)).toEqual([oldestFirst.attempts[1]!.id]);
    expect(page2.total).toBe(newest.total);
    const slowFirst = (await call(t, admin, 'GET', '/webhooks/attempts?sort=latency_ms&dir=desc')).json().attempts as Row[];
    const latencies = slowFirst.map((x) => x.latency_ms);
    expect(latencies).toEqual([...latencies].sort((x, y) => y - x));
    const scoped = (await call(t, finA, 'GET', '/webhooks/attempts?sort=started_at&dir=asc&offset=0')).json() as { attempts: Array<{ event_id: string }>; total: number };
    expect(scoped.attempts.every((x) => x.event_id === events.a)).toBe(true);
    expect(scoped.total).toBe(scoped.attempts.length);
    for (const bad of ['sort=seq', 'sort=a.latency_ms', 'dir=up', 'offset=-1']) {
      const res = await call(t, admin, 'GET', `/webhooks/attempts?${bad}`);
      expect(res.statusCode, bad).toBe(400);
      expect(errorCode(res)).toBe('INVALID_ARGUMENT');
    }
    const first = (await call(t, admin, 'GET', '/webhooks/attempts?limit=1')).json() as { next_cursor: string };
    const mixed = await call(t, admin, 'GET', `/webhooks/attempts?sort=latency_ms&cursor=${first.next_cursor}`);
    expect(mixed.statusCode).toBe(400);
    expect(errorCode(mixed)).toBe('INVALID_ARGUMENT');
  });

  it('redelivers an event with the same id and body, and audits it; another merchant’s event is 404', async () => {
    const res = await call(t, finA, 'POST', `/webhooks/events/${events.a}/redeliver`, {});
    expect(res.statusCode).toBe(200);
    await dispatcher.idle();
    const bodies = receiver.received.map((r) => r.body.toString('utf8')).filter((body) => body.includes(events.a!));
    expect(bodies).toHaveLength(2);
    expect(bodies[1]).toBe(bodies[0]);
    const kinds = ((await call(t, finA, 'GET', '/webhooks/attempts')).json().attempts as Array<{ kind: string }>).map((x) => x.kind);
    expect(kinds).toEqual(['manual', 'initial']);
    expect((await call(t, finA, 'POST', `/webhooks/events/${events.b}/redeliver`, {})).statusCode).toBe(404);
    const audit = (await call(t, admin, 'GET', `/audit?action=webhook.redeliver`)).json().entries;
    expect(audit[0]).toMatchObject({ target_id: events.a, actor: { id: finA.id } });
  });

  it('recovers failed deliveries since a time; validates since', async () => {
    const ok = await call(t, admin, 'POST', '/webhooks/recover', { since: new Date(Date.now() - 3600_000).toISOString() });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toMatchObject({ recovered: 0 });
    const bad = await call(t, admin, 'POST', '/webhooks/recover', {});
    expect(bad.statusCode).toBe(400);
    expect(errorCode(bad)).toBe('INVALID_ARGUMENT');
  });

  it('reports endpoint health; rotation and disabling are admin-only', async () => {
    const health = await call(t, finA, 'GET', '/webhooks/endpoints/health');
    expect(health.statusCode).toBe(200);
    const endpoints = health.json().endpoints as Array<{ endpoint_id: string; merchant_id: string; success_rate: number; deliveries: { succeeded: number } }>;
    expect(endpoints).toHaveLength(1);
    expect(endpoints[0]).toMatchObject({ merchant_id: a.merchant_id, success_rate: 1 });
    const id = endpoints[0]!.endpoint_id;
    for (const [action, body] of [['rotate-secret', { overlap_hours: 1 }], ['disable', { reason: 'maintenance' }], ['enable', {}]] as const) {
      const refused = await call(t, finA, 'POST', `/webhooks/endpoints/${id}/${action}`, body);
      expect(refused.statusCode, action).toBe(403);
    }
    const rotated = await call(t, admin, 'POST', `/webhooks/endpoints/${id}/rotate-secret`, { overlap_hours: 1 });
    expect(rotated.statusCode).toBe(200);
    expect(rotated.json().secret).toMatch(/^whsec_/);
    const disabled = await call(t, admin, 'POST', `/webhooks/endpoints/${id}/disable`, { reason: 'maintenance' });
    expect(disabled.json()).toMatchObject({ status: 'disabled', disabled_reason: 'maintenance' });
    expect((await call(t, admin, 'POST', `/webhooks/endpoints/${id}/enable`, {})).json().status).toBe('active');
  });

  it('tellers and supervisors have no webhooks screen: 403 FORBIDDEN', async () => {
    for (const who of [teller, sup]) {
      const res = await call(t, who, 'GET', '/webhooks/attempts');
      expect(res.statusCode).toBe(403);
      expect(errorCode(res)).toBe('FORBIDDEN');
    }
  });
});
