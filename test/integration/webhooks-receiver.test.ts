import { createHmac } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDispatcher, type Dispatcher } from '../../server/modules/webhooks/dispatcher';
import { buildExampleReceiver, type ExampleReceiver } from '../support/example-receiver';
import type { MerchantOrder } from '../../shared/webhooks/receiver';
import { bearer, createTestApp, type TestContext } from '../support/app';

/**
 * The documented example receiver (docs/webhooks.md) fed real deliveries by the dispatcher
 * over HTTP: rules 5–6 — a replayed event is acknowledged and not fulfilled again, a
 * mismatching amount or currency is never fulfilled, a tampered body is refused.
 */

let t: TestContext;
let dispatcher: Dispatcher;
let receiver: ExampleReceiver;
let receiverUrl: string;
const orders = new Map<string, MerchantOrder>();
let secret: string;
let apiKey: string;

beforeEach(async () => {
  t = await createTestApp();
  orders.clear();
  // The receiver needs the secret, which exists only once the endpoint does: route via a holder.
  const secrets: string[] = [];
  receiver = await buildExampleReceiver({ secrets, orders, now: () => t.clock.now() });
  await receiver.app.listen({ port: 0, host: '127.0.0.1' });
  const addr = receiver.app.server.address() as { port: number };
  receiverUrl = `http://127.0.0.1:${addr.port}/webhooks/paydesk`;
  const m = await t.merchant(undefined, receiverUrl);
  secret = m.webhook_secret!;
  secrets.push(secret);
  apiKey = m.api_key;
  dispatcher = createDispatcher({ db: t.database.db, clock: t.clock, outbox: t.outbox, retryDelaysS: [1, 1], pollIntervalMs: 50 });
  await dispatcher.start();
});

afterEach(async () => {
  await dispatcher.stop();
  await receiver.app.close();
  await t.close();
});

async function pay(invoiceRef: string, amount: number, currency = 'GHS') {
  const s = await t.app.inject({ method: 'POST', url: '/api/v1/sessions', headers: bearer(apiKey), payload: { amount_minor: amount, invoice_ref: invoiceRef, currency } });
  expect(s.statusCode, s.body).toBe(201);
  const id = (s.json() as { id: string }).id;
  const quote = await t.app.inject({ method: 'GET', url: `/api/v1/checkout/sessions/${id}/quote` });
  const total = (quote.json() as { surcharges: Record<string, { total_minor: number }> }).surcharges.card!.total_minor;
  const paid = await t.app.inject({
    method: 'POST',
    url: `/api/v1/checkout/sessions/${id}/card-payments`,
    payload: { amount_minor: total, card_number: '4242424242424242', expiry_month: 12, expiry_year: 2099, cvc: '123' },
  });
  expect(paid.statusCode, paid.body).toBe(201);
  await dispatcher.idle();
  return t.database.db.selectFrom('events').selectAll().where('session_id', '=', id).executeTakeFirstOrThrow();
}

const lastAttempt = (eventId: string) =>
  t.database.db.selectFrom('webhook_delivery_attempts').selectAll().where('event_id', '=', eventId).orderBy('seq', 'desc').executeTakeFirstOrThrow();

const signed = (body: string, ts = Math.floor(t.clock.now().getTime() / 1000)) => `t=${ts},v1=${createHmac('sha256', secret).update(`${ts}.${body}`).digest('hex')}`;

async function post(body: string, signature: string, eventId?: string) {
  const res = await fetch(receiverUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-signature': signature, ...(eventId ? { 'x-service-event-id': eventId } : {}) },
    body,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('example receiver (rules 5–6)', () => {
  it('fulfils a matching completed event once and acknowledges a replay without fulfilling again', async () => {
    orders.set('INV-A', { invoice_ref: 'INV-A', amount_minor: 4200, currency: 'GHS' });
    const event = await pay('INV-A', 4200);
    const attempt = await lastAttempt(event.id);
    expect(attempt).toMatchObject({ outcome: 'succeeded', status_code: 200 });
    expect(JSON.parse(attempt.response_excerpt!)).toEqual({ received: true, outcome: 'fulfilled' });
    expect(receiver.fulfilled).toEqual([{ invoice_ref: 'INV-A', event_id: event.id }]);

    // A replay of the same event (say, a redelivery after a lost 200): 200, not fulfilled twice.
    const replay = await post(event.payload, signed(event.payload), event.id);
    expect(replay).toEqual({ status: 200, body: { received: true, outcome: 'duplicate' } });
    expect(receiver.fulfilled).toHaveLength(1);

    // The same id with a changed body, even correctly signed, is refused and never fulfilled.
    const changed = event.payload.replace('"amount_minor":4200', '"amount_minor":4300');
    expect(changed).not.toBe(event.payload);
    const reused = await post(changed, signed(changed), event.id);
    expect(reused.status).toBe(409);
    expect(reused.body.error).toBe('event_id_reused_with_different_body');
    expect(receiver.fulfilled).toHaveLength(1);
  });

  it('does not fulfil when the amount or the currency differs from the order', async () => {
    orders.set('INV-B', { invoice_ref: 'INV-B', amount_minor: 9999, currency: 'GHS' });
    orders.set('INV-C', { invoice_ref: 'INV-C', amount_minor: 500, currency: 'USD' });
    const b = await pay('INV-B', 1000);
    const c = await pay('INV-C', 500, 'GHS');
    const d = await pay('INV-UNKNOWN', 700);
    expect(JSON.parse((await lastAttempt(b.id)).response_excerpt!)).toEqual({ received: true, outcome: 'amount_mismatch' });
    expect(JSON.parse((await lastAttempt(c.id)).response_excerpt!)).toEqual({ received: true, outcome: 'currency_mismatch' });
    expect(JSON.parse((await lastAttempt(d.id)).response_excerpt!)).toEqual({ received: true, outcome: 'unknown_order' });
    expect(receiver.fulfilled).toEqual([]);
  });

  it('refuses a tampered body, a stale signature and a mismatched event-id header before any order state', async () => {
    orders.set('INV-D', { invoice_ref: 'INV-D', amount_minor: 100, currency: 'GHS' });
    const fake = JSON.stringify({ id: 'evt_forged', type: 'checkout.session.completed', data: { session: { id: 'cs_x', status: 'success', amount_minor: 100, currency: 'GHS', invoice_ref: 'INV-D', metadata: {} } } });
    const tampered = await post(fake, signed(fake.replace('evt_forged', 'evt_other')));
    expect(tampered).toMatchObject({ status: 400, body: { error: 'signature_mismatch' } });
    const stale = await post(fake, signed(fake, Math.floor(t.clock.now().getTime() / 1000) - 600));
    expect(stale).toMatchObject({ status: 400, body: { error: 'timestamp_too_old' } });
    const mismatch = await post(fake, signed(fake), 'evt_different');
    expect(mismatch).toMatchObject({ status: 400, body: { error: 'event_id_mismatch' } });
    expect(receiver.fulfilled).toEqual([]);
    // Correctly signed, it is processed (the signature is the only thing that made the others fail).
    expect(await post(fake, signed(fake), 'evt_forged')).toEqual({ status: 200, body: { received: true, outcome: 'fulfilled' } });
  });
});
