import Fastify, { type FastifyInstance } from 'fastify';
import { handleWebhook, memoryEventStore, type MerchantOrder, type PaydeskEvent, type ProcessedEventStore } from '../../shared/webhooks/receiver';

/**
 * The example merchant receiver of docs/webhooks.md, as runnable code (the tests send it real
 * deliveries). A merchant copies this shape: the route keeps the raw body (rule 1), and
 * `handleWebhook` verifies it, dedupes the event id and checks amount, currency and
 * invoice_ref against the merchant's own order before `fulfil` runs (rules 2–6).
 *
 * Here orders and processed ids live in memory; in a real receiver both are tables, and the
 * event-id claim and the fulfilment commit in one transaction.
 */
export interface ExampleReceiverOptions {
  /** The endpoint's signing secret(s) from `integration:create` (two while moving to a rotated one). */
  secrets: string[];
  orders: Map<string, MerchantOrder>;
  store?: ProcessedEventStore;
  now?: () => Date;
}

export interface ExampleReceiver {
  app: FastifyInstance;
  fulfilled: Array<{ invoice_ref: string; event_id: string }>;
}

export async function buildExampleReceiver(opts: ExampleReceiverOptions): Promise<ExampleReceiver> {
  const app = Fastify({ logger: false });
  const store = opts.store ?? memoryEventStore();
  const fulfilled: ExampleReceiver['fulfilled'] = [];

  // Rule 1: keep the body exactly as received; never verify a re-serialised parse.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: 1_048_576 }, (_req, body, done) => done(null, body));

  app.post('/webhooks/paydesk', async (req, reply) => {
    const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const answer = await handleWebhook(
      {
        secrets: opts.secrets,
        store,
        findOrder: async (invoiceRef) => opts.orders.get(invoiceRef) ?? null,
        fulfil: async (order: MerchantOrder, event: PaydeskEvent) => {
          // Ship the goods / mark the invoice paid: runs once per event id.
          fulfilled.push({ invoice_ref: order.invoice_ref, event_id: event.id });
        },
        ...(opts.now ? { now: opts.now } : {}),
      },
      raw,
      req.headers,
    );
    return reply.code(answer.status).send(answer.body);
  });

  return { app, fulfilled };
}
