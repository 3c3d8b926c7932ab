import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { migrate, openDatabase, type OpenedDatabase } from '../../server/db/database';
import { systemClock } from '../../server/lib/clock';
import { randomIds } from '../../server/lib/ids';
import { createIntegration } from '../../server/modules/integrations/integrations.service';
import { startLocalReceiver, type LocalReceiver } from '../support/local-receiver';
import { verifyWebhook } from '../../shared/webhooks/verify';

/**
 * A real `npm run serve` process (tsx server/main.ts) killed with SIGKILL while one delivery
 * is in flight and another waits for its retry: after a restart on the same DATA_DIR both
 * arrive, with the same event ids and bodies.
 */

const root = resolve(__dirname, '../..');
const dataDir = mkdtempSync(join(tmpdir(), 'paydesk-wh-restart-'));
const children: ChildProcess[] = [];
let receiver: LocalReceiver | undefined;
let database: OpenedDatabase | undefined;

afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await receiver?.close();
  await database?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function startServer(): Promise<{ child: ChildProcess; url: string }> {
  // `node --import tsx` rather than the tsx CLI: the CLI runs the server in a child process,
  // and SIGKILL must hit the server itself, not a wrapper.
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    cwd: root,
    env: { ...process.env, DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', WEBHOOK_RETRY_DELAYS_S: '2,2,2', RATE_LIMIT_PER_MIN: '0', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const url = await new Promise<string>((resolveUrl, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`server did not start in 30 s: ${stderr}`)), 30_000);
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /listening on (http:\/\/[^\s]+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolveUrl(m[1]!);
      }
    });
    child.once('exit', (code) => reject(new Error(`server exited ${code}: ${stderr}`)));
  });
  return { child, url };
}

async function pay(url: string, apiKey: string, invoiceRef: string): Promise<string> {
  const created = await fetch(`${url}/api/v1/sessions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ amount_minor: 1500, invoice_ref: invoiceRef }),
  });
  expect(created.status).toBe(201);
  const { id } = (await created.json()) as { id: string };
  const quote = (await (await fetch(`${url}/api/v1/checkout/sessions/${id}/quote`)).json()) as { surcharges: Record<string, { total_minor: number }> };
  const paid = await fetch(`${url}/api/v1/checkout/sessions/${id}/card-payments`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ amount_minor: quote.surcharges.card!.total_minor, card_number: '4242424242424242', expiry_month: 12, expiry_year: 2099, cvc: '123' }),
  });
  expect(paid.status).toBe(201);
  return id;
}

async function until<T>(what: string, probe: () => Promise<T | undefined | null | false>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('webhook outbox across a kill -9', () => {
  it('delivers the in-flight and the retry-pending deliveries after a restart', async () => {
    receiver = await startLocalReceiver({ respond: (r) => (r.n === 1 ? 'hang' : { status: 500 }) });
    database = openDatabase(join(dataDir, 'paydesk.sqlite'));
    await migrate(database.db);
    const m = await createIntegration(database.db, systemClock, randomIds, { merchantName: 'Restart Test', webhookUrl: receiver.url });
    const db = database.db;

    const first = await startServer();
    const sessionA = await pay(first.url, m.api_key, 'INV-RESTART-A');
    await receiver.waitFor(1, 15_000); // A: in flight, the receiver never answers
    const sessionB = await pay(first.url, m.api_key, 'INV-RESTART-B');
    await receiver.waitFor(2, 15_000); // B: answered 500, retry scheduled in 2 s
    const eventA = await db.selectFrom('events').selectAll().where('session_id', '=', sessionA).executeTakeFirstOrThrow();
    const eventB = await db.selectFrom('events').selectAll().where('session_id', '=', sessionB).executeTakeFirstOrThrow();
    await until('B failed attempt recorded', () =>
      db.selectFrom('webhook_deliveries').select('status').where('event_id', '=', eventB.id).where('attempt_count', '=', 1).executeTakeFirst(),
    );
    const a = await db.selectFrom('webhook_deliveries').selectAll().where('event_id', '=', eventA.id).executeTakeFirstOrThrow();
    expect(a).toMatchObject({ status: 'pending', attempt_count: 0 });
    expect(a.claimed_by).toContain(`:${first.child.pid}:`);

    first.child.kill('SIGKILL');
    await new Promise((r) => first.child.once('exit', r));
    const beforeRestart = receiver.received.length;
    receiver.respond = () => ({ status: 200 });

    const second = await startServer();
    await until('both delivered', async () => {
      const rows = await db.selectFrom('webhook_deliveries').select(['event_id', 'status']).where('event_id', 'in', [eventA.id, eventB.id]).execute();
      return rows.length === 2 && rows.every((r) => r.status === 'succeeded');
    });
    const after = receiver.received.slice(beforeRestart);
    const ids = after.map((r) => r.headers['x-service-event-id']);
    expect(ids.sort()).toEqual([eventA.id, eventB.id].sort());
    for (const r of after) {
      const event = r.headers['x-service-event-id'] === eventA.id ? eventA : eventB;
      expect(r.body.equals(Buffer.from(event.payload))).toBe(true);
      expect((await verifyWebhook(r.body, String(r.headers['x-service-signature']), m.webhook_secret!)).ok).toBe(true);
    }
    // A's first request (cut by the kill) and its redelivery carry the same id and bytes.
    expect(receiver.received[0]!.headers['x-service-event-id']).toBe(eventA.id);
    expect(receiver.received[0]!.body.equals(after.find((r) => r.headers['x-service-event-id'] === eventA.id)!.body)).toBe(true);

    // Graceful stop: exit 0.
    second.child.kill('SIGTERM');
    const code = await new Promise<number | null>((r) => second.child.once('exit', (c) => r(c)));
    expect(code).toBe(0);
  }, 90_000);
});
