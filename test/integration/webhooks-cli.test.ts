import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDispatcher, type Dispatcher } from '../../server/modules/webhooks/dispatcher';
import { startLocalReceiver, type LocalReceiver } from '../support/local-receiver';
import { bearer, createTestApp, type TestContext } from '../support/app';

/** `npm run admin -- webhooks:redeliver` and `webhooks:tail` as real processes on the test's DATA_DIR. */

const root = resolve(__dirname, '../..');
let t: TestContext;
let receiver: LocalReceiver;
let dispatcher: Dispatcher;

beforeEach(async () => {
  t = await createTestApp();
  receiver = await startLocalReceiver();
  dispatcher = createDispatcher({ db: t.database.db, clock: t.clock, outbox: t.outbox, retryDelaysS: [1], pollIntervalMs: 50 });
  await dispatcher.start();
});

afterEach(async () => {
  await dispatcher.stop();
  await receiver.close();
  await t.close();
});

function admin(args: string[]) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/cli/admin.ts', ...args], {
    cwd: root,
    // The CLI opens what the server does: the same DATA_DIR, and on PostgreSQL the same DATABASE_URL.
    env: { ...process.env, DATA_DIR: t.dataDir, ...(t.config.databaseUrl ? { DATABASE_URL: t.config.databaseUrl } : {}) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((r) => child.once('exit', (code) => r({ code, stdout, stderr })));
  return { child, done, out: () => stdout };
}

async function paidEvent(apiKey: string) {
  const s = await t.app.inject({ method: 'POST', url: '/api/v1/sessions', headers: bearer(apiKey), payload: { amount_minor: 800, invoice_ref: 'INV-CLI' } });
  const id = (s.json() as { id: string }).id;
  const quote = await t.app.inject({ method: 'GET', url: `/api/v1/checkout/sessions/${id}/quote` });
  const total = (quote.json() as { surcharges: Record<string, { total_minor: number }> }).surcharges.card!.total_minor;
  const paid = await t.app.inject({
    method: 'POST',
    url: `/api/v1/checkout/sessions/${id}/card-payments`,
    payload: { amount_minor: total, card_number: '4242424242424242', expiry_month: 12, expiry_year: 2099, cvc: '123' },
  });
  expect(paid.statusCode, paid.body).toBe(201);
  return t.database.db.selectFrom('events').selectAll().where('session_id', '=', id).executeTakeFirstOrThrow();
}

async function until(what: string, probe: () => boolean, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('webhook CLI', () => {
  it('redeliver queues a manual attempt the running dispatcher sends; tail follows it as JSON lines until Ctrl-C', async () => {
    const m = await t.merchant(undefined, receiver.url);
    const event = await paidEvent(m.api_key);
    await receiver.waitFor(1);
    await dispatcher.idle();

    const tail = admin(['webhooks:tail', '--json', '--last', '5']);
    await until('tail prints the first attempt', () => tail.out().split('\n').filter(Boolean).length >= 1);

    const re = await admin(['webhooks:redeliver', '--event', event.id, '--json']).done;
    expect(re.code, re.stderr).toBe(0);
    const out = JSON.parse(re.stdout) as { event_id: string; deliveries: Array<{ status: string; endpoint_url: string }> };
    expect(out.event_id).toBe(event.id);
    expect(out.deliveries).toEqual([expect.objectContaining({ status: 'pending', endpoint_url: receiver.url })]);

    // The CLI stamped the request with the wall clock; bring the test's clock level with it.
    t.clock.set(Date.now() + 1000);
    await receiver.waitFor(2);
    expect(receiver.received[1]!.headers['x-service-event-id']).toBe(event.id);
    expect(receiver.received[1]!.body.equals(receiver.received[0]!.body)).toBe(true);

    await until('tail prints the manual attempt', () => tail.out().split('\n').filter(Boolean).length >= 2);
    tail.child.kill('SIGINT');
    const ended = await tail.done;
    expect(ended.code).toBe(0);
    const lines = ended.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { event_id: string; kind: string; outcome: string; status_code: number });
    expect(lines.map((l) => [l.event_id, l.kind, l.outcome, l.status_code])).toEqual([
      [event.id, 'initial', 'succeeded', 200],
      [event.id, 'manual', 'succeeded', 200],
    ]);
  }, 60_000);

  it('refuses an unknown event with a one-line message and a non-zero exit', async () => {
    const r = await admin(['webhooks:redeliver', '--event', 'evt_nope', '--json']).done;
    expect(r.code).not.toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/event evt_nope not found/);
  }, 30_000);
});
