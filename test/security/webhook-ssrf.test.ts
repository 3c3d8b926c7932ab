import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Dispatcher } from '../../server/modules/webhooks/dispatcher';
import { guardedLookup, RESPONSE_EXCERPT_BYTES } from '../../server/modules/webhooks/http-attempt';
import { startLocalReceiver, type LocalReceiver } from '../support/local-receiver';
import { checkWebhookUrl } from '../../server/modules/webhooks/url-policy';
import { randomIds } from '../../server/lib/ids';
import { createTestApp, type TestContext } from '../support/app';
import { runAdmin } from '../support/cli';
import { attemptsOf, paidSession, testDispatcher } from '../support/webhooks';
import { call, staff } from '../support/backoffice';

/**
 * Webhook URLs must not reach internal services. Checked when the URL is saved
 * (back office, CLI: 400 naming webhook_url) and again when connecting, on the address the
 * name resolves to; the delivery log keeps only a short excerpt and allow-listed headers.
 * The test app's own address is HOST:PORT 127.0.0.1:4610 and PUBLIC_BASE_URL http://paydesk.test.
 */

let t: TestContext;
beforeEach(async () => {
  t = await createTestApp();
});
afterEach(async () => {
  await t.close();
});

const refusedAlways = [
  ['http://169.254.169.254/latest/meta-data/', 'link-local or cloud metadata'],
  ['http://[::ffff:169.254.169.254]/latest/meta-data/', 'link-local or cloud metadata'],
  ['http://[fe80::1]:8080/hook', 'link-local or cloud metadata'],
  ['http://100.100.100.200/latest/meta-data/', 'cloud metadata'],
  ['http://[fd00:ec2::254]/latest/meta-data/', 'cloud metadata'],
  ['http://metadata.google.internal/computeMetadata/v1/', 'cloud metadata'],
  ['http://user:pw@127.0.0.1:5000/hook', 'user name or password'],
  ['http://localhost:4610/api/backoffice/v1/admin/staff', "Paydesk's own address"],
  ['http://0x7f000001:4610/api/backoffice/v1/admin/staff', "Paydesk's own address"],
  ['http://127.1:4610/hook', "Paydesk's own address"],
  ['http://[::1]:4610/hook', "Paydesk's own address"],
  ['http://[::ffff:127.0.0.1]:4610/hook', "Paydesk's own address"],
  ['http://paydesk.test/hook', "Paydesk's own address"],
  ['http://0.0.0.0:5000/hook', 'not a unicast address'],
  ['http://224.0.0.1/hook', 'not a unicast address'],
] as const;

describe('webhook URLs when saved', () => {
  it('the back office refuses link-local, metadata, credentials, its own address and non-unicast, with a 400 naming webhook_url', async () => {
    const admin = await staff(t, 'admin');
    const m = await t.merchant();
    for (const [url, why] of refusedAlways) {
      const res = await call(t, admin, 'POST', `/admin/integrations/${m.integration_id}/webhook-endpoints`, { url });
      expect(res.statusCode, `${url}: ${res.body}`).toBe(400);
      expect(res.json().error).toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringMatching(/^webhook_url: /) });
      expect(res.json().error.message, url).toContain(why);
      const created = await call(t, admin, 'POST', '/admin/integrations', { merchant_name: 'SSRF Ltd', webhook_url: url });
      expect(created.statusCode, url).toBe(400);
    }
    expect(await t.database.db.selectFrom('webhook_endpoints').select('id').execute()).toHaveLength(0);
    expect(await t.database.db.selectFrom('merchants').select('id').where('name', '=', 'SSRF Ltd').execute()).toHaveLength(0);
  });

  it('keeps plain http and loopback receivers for test integrations, and private addresses', async () => {
    const admin = await staff(t, 'admin');
    const m = await t.merchant();
    for (const url of ['http://127.0.0.1:5000/hook', 'http://localhost:5001/hook', 'http://[::1]:5002/hook', 'http://10.0.0.5/hook', 'https://hooks.example.com/paydesk']) {
      const res = await call(t, admin, 'POST', `/admin/integrations/${m.integration_id}/webhook-endpoints`, { url });
      expect(res.statusCode, `${url}: ${res.body}`).toBe(201);
    }
  });

  it('for live integrations refuses everything but global unicast (loopback, private, ULA, reserved, IPv4 inside IPv6) and plain http', () => {
    for (const [url, why] of [
      ['http://hooks.example.com/paydesk', 'must be an https URL'],
      ['https://127.0.0.1/hook', 'loopback'],
      ['https://localhost/hook', 'loopback'],
      ['https://[::1]/hook', 'loopback'],
      ['https://10.1.2.3/hook', 'private'],
      ['https://172.16.0.1/hook', 'private'],
      ['https://172.31.255.255/hook', 'private'],
      ['https://192.168.1.10/hook', 'private'],
      ['https://100.64.0.1/hook', 'private'],
      ['https://[fd12:3456::1]/hook', 'private'],
      ['https://169.254.169.254/', 'metadata'],
      // IPv4 inside IPv6 (NAT64, 6to4, IPv4-compatible, IPv4-mapped) is judged as that IPv4 address
      ['https://[64:ff9b::a9fe:a9fe]/hook', 'metadata'],
      ['https://[64:ff9b::a00:1]/hook', 'private'],
      ['https://[2002:a9fe:a9fe::1]/hook', 'metadata'],
      ['https://[::a9fe:a9fe]/hook', 'metadata'],
      ['https://[::ffff:a9fe:a9fe]/hook', 'metadata'],
      // benchmarking, reserved, IETF protocol assignments, documentation: not global unicast
      ['https://198.18.0.1/hook', 'not a global unicast'],
      ['https://240.0.0.1/hook', 'not a global unicast'],
      ['https://192.0.0.1/hook', 'not a global unicast'],
      ['https://192.0.2.1/hook', 'not a global unicast'],
    ] as const) {
      expect(() => checkWebhookUrl(url, 'live'), url).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', message: expect.stringContaining(why) }));
    }
    expect(checkWebhookUrl('https://hooks.example.com/paydesk', 'live')).toBe('https://hooks.example.com/paydesk');
    expect(checkWebhookUrl('https://172.32.0.1/hook', 'live')).toBe('https://172.32.0.1/hook'); // just outside 172.16/12
  });

  it('the CLI refuses them with a one-line message naming webhook_url', async () => {
    for (const url of ['http://169.254.169.254/latest/meta-data/', 'http://localhost:4610/api/backoffice/v1/admin/staff']) {
      const r = await runAdmin(t.dataDir, ['integration:create', '--merchant', 'SSRF CLI', '--webhook-url', url]);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain('webhook_url: must not point to');
    }
  });
});

describe('webhook URLs when connecting', () => {
  let paydesk: LocalReceiver; // stands in for Paydesk's own listener
  let dispatcher: Dispatcher | undefined;
  beforeEach(async () => {
    paydesk = await startLocalReceiver();
  });
  afterEach(async () => {
    await dispatcher?.stop();
    dispatcher = undefined;
    await paydesk.close();
  });

  /** An endpoint stored before these rules (or pointing at a name whose DNS changed since). */
  async function storedEndpoint(url: string) {
    const m = await t.merchant();
    const now = t.clock.now().toISOString();
    await t.database.db
      .insertInto('webhook_endpoints')
      .values({ id: randomIds.uuid(), integration_id: m.integration_id, url, secret: 'whsec_x', previous_secret: null, previous_secret_expires_at: null, status: 'active', disabled_reason: null, created_at: now, updated_at: now })
      .execute();
    return m;
  }

  it('a name resolving to Paydesk itself is refused at connect time, and nothing reaches it', async () => {
    const m = await storedEndpoint(`http://localhost:${paydesk.port}/api/backoffice/v1/admin/staff`);
    const { event } = await paidSession(t, m.api_key);
    dispatcher = testDispatcher(t, { ownAddresses: () => [{ host: '127.0.0.1', port: paydesk.port }] });
    await dispatcher.start();
    await dispatcher.idle();
    const [a] = await attemptsOf(t, event.id);
    expect(a).toMatchObject({ outcome: 'failed', status_code: null, response_excerpt: null, response_headers: null });
    expect(a!.error).toMatch(/^refused: .*Paydesk's own address/);
    expect(paydesk.received).toHaveLength(0);
  });

  it('an IP literal stored before the rules is refused before connecting', async () => {
    const m = await storedEndpoint('http://169.254.169.254/latest/meta-data/');
    const { event } = await paidSession(t, m.api_key);
    dispatcher = testDispatcher(t);
    await dispatcher.start();
    await dispatcher.idle();
    expect((await attemptsOf(t, event.id))[0]!.error).toMatch(/^refused: the endpoint URL must not point to 169\.254\.169\.254 is a link-local/);
  });

  it('the lookup refuses a name when any address it resolves to is forbidden (DNS rebinding)', async () => {
    const lookup = guardedLookup({ mode: 'live', own: [] }, 443);
    const err = await new Promise<Error | null>((done) => lookup('localhost', { all: true }, (e) => done(e)));
    expect(err).toMatchObject({ code: 'EWEBHOOKBLOCKED', message: expect.stringContaining('loopback') });
    const ok = await new Promise<Error | null>((done) => guardedLookup({ mode: 'test', own: [] }, 443)('localhost', { all: true }, (e) => done(e)));
    expect(ok).toBeNull();
  });

  it('stores at most 1 KiB of the answer and only the headers a developer needs', async () => {
    paydesk.respond = () => ({ status: 500, headers: { 'set-cookie': 'session=secret', 'x-internal-token': 'abc', server: 'test-receiver' }, body: 'x'.repeat(5000) });
    const m = await t.merchant(undefined, paydesk.url);
    const { event } = await paidSession(t, m.api_key);
    dispatcher = testDispatcher(t);
    await dispatcher.start();
    await paydesk.waitFor(1);
    await dispatcher.idle();
    const [a] = await attemptsOf(t, event.id);
    expect(Buffer.byteLength(a!.response_excerpt!.replace(/…$/, ''))).toBe(RESPONSE_EXCERPT_BYTES);
    expect(JSON.parse(a!.response_headers!)).toEqual({ 'content-type': 'application/json', server: 'test-receiver', date: expect.any(String) });
  });
});

describe("a listening server's own dispatcher", () => {
  it('refuses an endpoint on the port it is bound to (not known when the URL was saved), and nothing reaches the server', async () => {
    const reached: string[] = [];
    const own = await createTestApp({
      backgroundJobs: true,
      publicBaseUrl: null,
      env: { HOST: '127.0.0.1', PORT: '0' },
      extend: (app) => {
        app.addHook('onRequest', async (req) => void reached.push(req.url));
      },
    });
    try {
      await own.app.listen({ host: '127.0.0.1', port: 0 });
      const port = (own.app.server.address() as { port: number }).port;
      // PORT=0 at save time: the save-time check knows no port to refuse; the dispatcher knows the bound one.
      const m = await own.merchant('Self Caller', `http://127.0.0.1:${port}/api/backoffice/v1/admin/staff`);
      const first = await paidSession(own, m.api_key);
      const second = await paidSession(own, m.api_key);
      await own.app.webhookDispatcher!.idle();
      for (const { event } of [first, second]) {
        const [a] = await attemptsOf(own, event.id);
        expect(a).toMatchObject({ outcome: 'failed', status_code: null });
        expect(a!.error).toMatch(/^refused: .*Paydesk's own address/);
      }
      expect(reached.filter((u) => u.startsWith('/api/backoffice'))).toEqual([]);
    } finally {
      await own.close();
    }
  });
});
