import { Webhook as StandardWebhook } from 'standardwebhooks';
import Stripe from 'stripe';
import { Webhook as SvixWebhook } from 'svix';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Dispatcher } from '../../server/modules/webhooks/dispatcher';
import { startLocalReceiver, type LocalReceiver, type ReceivedRequest } from '../support/local-receiver';
import { standardWebhooksKey } from '../../server/modules/webhooks/signing';
import { ALL_MERCHANTS, rotateEndpointSecret } from '../../server/modules/webhooks/webhooks.service';
import { randomIds } from '../../server/lib/ids';
import { createTestApp, type TestContext } from '../support/app';
import { paidSession, testDispatcher } from '../support/webhooks';

/**
 * docs/webhooks.md "Verifying with a library you already use": each recipe, verbatim in
 * spirit, against a REAL delivery (the dispatcher posting to a receiver on 127.0.0.1),
 * with the libraries merchants install from npm. Each must also refuse a changed byte.
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

/** One real delivery of a completed event, and the secret it was signed with. */
async function realDelivery(): Promise<{ req: ReceivedRequest; secret: string; eventId: string }> {
  const m = await t.merchant(undefined, receiver.url);
  const { event } = await paidSession(t, m.api_key);
  dispatcher = testDispatcher(t);
  await dispatcher.start();
  await receiver.waitFor(1);
  return { req: receiver.received[0]!, secret: m.webhook_secret!, eventId: event.id };
}

/** Node's IncomingHttpHeaders as the plain string record the libraries take. */
const headersOf = (req: ReceivedRequest): Record<string, string> =>
  Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : String(v)]));

const tamper = (body: Buffer) => body.toString('utf8').replace('"amount_minor":2500', '"amount_minor":2501');

describe('verifying a real delivery with the libraries merchants already use', () => {
  it('standardwebhooks: new Webhook(secret).verify(rawBody, headers) with the webhook-* headers', async () => {
    const { req, secret, eventId } = await realDelivery();
    const raw = req.body.toString('utf8');
    const wh = new StandardWebhook(secret);
    const event = wh.verify(raw, headersOf(req)) as { id: string; type: string };
    expect(event).toMatchObject({ id: eventId, type: 'checkout.session.completed' });
    expect(() => wh.verify(tamper(req.body), headersOf(req))).toThrow();
  });

  it('svix: new Webhook(secret).verify(rawBody, headers) with the webhook-* headers', async () => {
    const { req, secret, eventId } = await realDelivery();
    const wh = new SvixWebhook(secret);
    expect(wh.verify(req.body.toString('utf8'), headersOf(req))).toMatchObject({ id: eventId });
    expect(() => wh.verify(tamper(req.body), headersOf(req))).toThrow();
  });

  it("stripe: stripe.webhooks.constructEvent(rawBody, X-Service-Signature, the whole whsec_… secret)", async () => {
    const { req, secret, eventId } = await realDelivery();
    const signature = String(req.headers['x-service-signature']);
    const event = Stripe.webhooks.constructEvent(req.body, signature, secret);
    expect(event).toMatchObject({ id: eventId, type: 'checkout.session.completed' });
    // The secret is the whole string, prefix included: without it nothing verifies.
    expect(() => Stripe.webhooks.constructEvent(req.body, signature, secret.slice('whsec_'.length))).toThrow();
    expect(() => Stripe.webhooks.constructEvent(tamper(req.body), signature, secret)).toThrow();
  });
});

describe('webhook signing secrets', () => {
  it('new and rotated secrets carry at least 192 bits (Standard Webhooks minimum)', async () => {
    const m = await t.merchant(undefined, receiver.url);
    const endpoint = await t.database.db.selectFrom('webhook_endpoints').select('id').where('integration_id', '=', m.integration_id).executeTakeFirstOrThrow();
    const rotated = await rotateEndpointSecret(t.database.db, t.clock, randomIds, endpoint.id, { overlapHours: 0 }, ALL_MERCHANTS);
    for (const secret of [m.webhook_secret!, rotated.secret]) {
      const body = secret.slice('whsec_'.length);
      expect(body).toMatch(/^[0-9A-Za-z]+$/);
      expect(body.length * Math.log2(62)).toBeGreaterThanOrEqual(192);
      // The Standard Webhooks key is the base64 decoding of that part: 24 bytes at least.
      expect(standardWebhooksKey(secret).length).toBeGreaterThanOrEqual(24);
      expect(body.length % 4).toBe(0); // valid unpadded base64 for strict decoders
    }
  });
});
