/**
 * The whole receiving side of a Paydesk webhook (docs/webhooks.md, receiver rules 1–6), independent
 * of any web framework: hand it the raw body and the headers, get back the status and body
 * to answer. docs/webhooks.md wraps it in a Fastify route; test/support/example-receiver.ts
 * is that example as runnable code (the tests drive it with real deliveries).
 *
 * Order of checks, each one before anything touches order state:
 *   1–4. signature over the raw body, timestamp window, constant-time compare (verify.ts);
 *   -    the X-Service-Event-Id header, when sent, equals the body's `id`;
 *   5.   dedupe on the event id: an event already processed answers 200 and is not fulfilled
 *        again; the same id with a different body is refused (409) and never fulfilled;
 *   6.   `checkout.session.completed` is fulfilled only when the session status is
 *        `success` and `amount_minor`, `currency` and `invoice_ref` match the merchant's own
 *        order. A mismatch is acknowledged (200, so it is not redelivered forever) but not
 *        fulfilled: `outcome` says why, for the merchant's review queue.
 * Failed and expired events are recorded and acknowledged; nothing is released.
 */
import { verifyWebhook, type WebhookVerifyFailure } from './verify';

/** Where the receiver remembers processed event ids (a table with a unique key, in real life). */
export interface ProcessedEventStore {
  /** The body digest stored for this event id, or null if the id was never claimed. */
  get(eventId: string): Promise<string | null>;
  /** Claims the id atomically; false when another request claimed it first. */
  claim(eventId: string, bodyDigest: string): Promise<boolean>;
  /** Undoes a claim when fulfilment failed, so the redelivery is processed. */
  release(eventId: string): Promise<void>;
}

/** The merchant's own record of what the payer owes. */
export interface MerchantOrder {
  invoice_ref: string;
  amount_minor: number;
  currency: string;
}

export interface PaydeskEvent {
  id: string;
  type: string;
  data: { session: { id: string; status: string; amount_minor: number; currency: string; invoice_ref: string; metadata?: unknown } };
}

export interface ReceiverOptions {
  /** Signing secrets to accept (normally one; two while the merchant moves to a rotated one). */
  secrets: readonly string[];
  store: ProcessedEventStore;
  findOrder(invoiceRef: string): Promise<MerchantOrder | null>;
  fulfil(order: MerchantOrder, event: PaydeskEvent): Promise<void>;
  toleranceSeconds?: number;
  now?: () => Date;
}

export type ReceiverOutcome =
  | 'fulfilled'
  | 'duplicate'
  | 'recorded' // failed / expired / unknown types: acknowledged, nothing released
  | 'unknown_order'
  | 'amount_mismatch'
  | 'currency_mismatch'
  | 'status_not_success';

export type ReceiverAnswer =
  | { status: 200; body: { received: true; outcome: ReceiverOutcome } }
  | { status: 400 | 409 | 500; body: { error: WebhookVerifyFailure | 'event_id_mismatch' | 'invalid_payload' | 'event_id_reused_with_different_body' | 'fulfilment_failed'; message: string } };

type Headers = Record<string, string | string[] | undefined>;

const header = (headers: Headers, name: string): string | undefined => {
  const v = headers[name] ?? headers[name.toLowerCase()];
  return Array.isArray(v) ? v[0] : v;
};

async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new Uint8Array(bytes)));
  return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
}

function parseEvent(text: string): PaydeskEvent | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (!value || typeof value !== 'object') return null;
  const e = value as Partial<PaydeskEvent>;
  const s = e.data?.session;
  if (typeof e.id !== 'string' || typeof e.type !== 'string' || !s || typeof s !== 'object') return null;
  if (typeof s.status !== 'string' || typeof s.amount_minor !== 'number' || typeof s.currency !== 'string' || typeof s.invoice_ref !== 'string') return null;
  return e as PaydeskEvent;
}

/** Applies receiver rules 1–6 to one request. */
export async function handleWebhook(opts: ReceiverOptions, rawBody: string | Uint8Array, headers: Headers): Promise<ReceiverAnswer> {
  const bytes = typeof rawBody === 'string' ? new TextEncoder().encode(rawBody) : rawBody;
  const signature = header(headers, 'x-service-signature');
  const now = opts.now?.() ?? new Date();
  let failure: { reason: WebhookVerifyFailure; message: string } | undefined;
  for (const secret of opts.secrets) {
    const result = await verifyWebhook(bytes, signature, secret, { now, ...(opts.toleranceSeconds === undefined ? {} : { toleranceSeconds: opts.toleranceSeconds }) });
    if (result.ok) {
      failure = undefined;
      break;
    }
    failure = { reason: result.reason, message: result.message };
  }
  if (failure || opts.secrets.length === 0) return { status: 400, body: { error: failure?.reason ?? 'missing_secret', message: failure?.message ?? 'no secret configured' } };

  const event = parseEvent(new TextDecoder().decode(bytes));
  if (!event) return { status: 400, body: { error: 'invalid_payload', message: 'body is not a Paydesk event' } };
  const headerId = header(headers, 'x-service-event-id');
  if (headerId !== undefined && headerId !== event.id) {
    return { status: 400, body: { error: 'event_id_mismatch', message: 'X-Service-Event-Id differs from the body id' } };
  }

  // Rule 5: at-least-once delivery, so every event id is processed once.
  const digest = await sha256Hex(bytes);
  const seen = await opts.store.get(event.id);
  if (seen !== null || !(await opts.store.claim(event.id, digest))) {
    const stored = seen ?? (await opts.store.get(event.id));
    if (stored !== digest) {
      return { status: 409, body: { error: 'event_id_reused_with_different_body', message: `event ${event.id} was processed with a different body; not fulfilled` } };
    }
    return { status: 200, body: { received: true, outcome: 'duplicate' } };
  }

  if (event.type !== 'checkout.session.completed') return { status: 200, body: { received: true, outcome: 'recorded' } };

  // Rule 6: terminal success and the merchant's own amount, currency and invoice reference.
  const s = event.data.session;
  const order = await opts.findOrder(s.invoice_ref);
  let outcome: ReceiverOutcome = 'fulfilled';
  if (s.status !== 'success') outcome = 'status_not_success';
  else if (!order || order.invoice_ref !== s.invoice_ref) outcome = 'unknown_order';
  else if (order.amount_minor !== s.amount_minor) outcome = 'amount_mismatch';
  else if (order.currency !== s.currency) outcome = 'currency_mismatch';
  if (outcome !== 'fulfilled' || !order) return { status: 200, body: { received: true, outcome } };
  try {
    await opts.fulfil(order, event);
  } catch (err) {
    await opts.store.release(event.id); // let Paydesk's retry process it again
    return { status: 500, body: { error: 'fulfilment_failed', message: err instanceof Error ? err.message : String(err) } };
  }
  return { status: 200, body: { received: true, outcome: 'fulfilled' } };
}

/** A ProcessedEventStore in memory: for examples and tests only (it forgets on restart). */
export function memoryEventStore(): ProcessedEventStore & { size(): number } {
  const seen = new Map<string, string>();
  return {
    get: async (id) => seen.get(id) ?? null,
    claim: async (id, digest) => {
      if (seen.has(id)) return false;
      seen.set(id, digest);
      return true;
    },
    release: async (id) => {
      seen.delete(id);
    },
    size: () => seen.size,
  };
}
