import { expect } from 'vitest';
import { createDispatcher, type Dispatcher, type DispatcherOptions } from '../../server/modules/webhooks/dispatcher';
import { bearer, type TestContext } from './app';

/**
 * Webhook test helpers: real terminal transitions over the public API (so the outbox writes
 * real deliveries), a dispatcher on the test's ManualClock, and polling without timing asserts.
 */

export function testDispatcher(t: TestContext, opts: Partial<DispatcherOptions> = {}): Dispatcher {
  return createDispatcher({ db: t.database.db, clock: t.clock, outbox: t.outbox, retryDelaysS: [1, 1, 1], attemptTimeoutMs: 5_000, pollIntervalMs: 50, ...opts });
}

export async function createSession(t: TestContext, apiKey: string, extraBody: Record<string, unknown> = {}) {
  const invoiceRef = `INV-${Math.random().toString(36).slice(2, 8)}`;
  const res = await t.app.inject({ method: 'POST', url: '/api/v1/sessions', headers: bearer(apiKey), payload: { amount_minor: 2500, invoice_ref: invoiceRef, ...extraBody } });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { id: string; invoice_ref: string };
}

/** Pays a new session by sandbox card: it reaches success and emits checkout.session.completed. */
export async function paidSession(t: TestContext, apiKey: string, extraBody: Record<string, unknown> = {}) {
  const s = await createSession(t, apiKey, extraBody);
  const quote = await t.app.inject({ method: 'GET', url: `/api/v1/checkout/sessions/${s.id}/quote` });
  expect(quote.statusCode, quote.body).toBe(200);
  const total = (quote.json() as { surcharges: Record<string, { total_minor: number }> }).surcharges.card!.total_minor;
  const paid = await t.app.inject({
    method: 'POST',
    url: `/api/v1/checkout/sessions/${s.id}/card-payments`,
    payload: { amount_minor: total, card_number: '4242424242424242', expiry_month: 12, expiry_year: 2099, cvc: '123' },
  });
  expect(paid.statusCode, paid.body).toBe(201);
  const event = await t.database.db.selectFrom('events').selectAll().where('session_id', '=', s.id).executeTakeFirstOrThrow();
  return { session: s, event };
}

export async function until<T>(what: string, probe: () => Promise<T | undefined | null | false>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export const deliveriesOf = (t: TestContext, eventId: string) => t.database.db.selectFrom('webhook_deliveries').selectAll().where('event_id', '=', eventId).execute();
export const attemptsOf = (t: TestContext, eventId: string) =>
  t.database.db.selectFrom('webhook_delivery_attempts').selectAll().where('event_id', '=', eventId).orderBy('seq').execute();
