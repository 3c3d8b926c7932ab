import { afterEach, describe, expect, it } from 'vitest';
import { dataDir, inspect, request, runAdmin, sleep, spawnServer, startReceiver, until, type Child, type Receiver } from '../support/drills';
import { budget } from '../support/pace';

/**
 * kill -9 drills against the real server process (`server/main.ts`, what `npm run serve` runs):
 * whatever the server acknowledged before it died is there after a restart.
 */
describe('drill: kill -9 and restart', () => {
  const cleanup: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const fn of cleanup.splice(0).reverse()) await fn();
  });

  it('keeps every session it answered 201 for, and replays their idempotency keys', async () => {
    const data = dataDir();
    cleanup.push(data.rm);
    let server: Child = await spawnServer(data.dir);
    cleanup.push(() => server.kill9());
    const { api_key } = await runAdmin<{ api_key: string }>(data.dir, ['integration:create', '--merchant', 'Crash Drill']);

    const acknowledged = new Map<string, string>(); // idempotency key → session id
    let stop = false;
    let n = 0;
    const writer = async () => {
      while (!stop) {
        const key = `crash-${++n}`;
        try {
          const res = await request(server.url, 'POST', '/api/v1/sessions', {
            key: api_key,
            headers: { 'idempotency-key': key },
            body: { amount_minor: 500 + n, invoice_ref: `INV-CRASH-${n}` },
          });
          if (res.status === 201) acknowledged.set(key, (res.body as { id: string }).id);
          else expect(res.status, JSON.stringify(res.body)).toBeLessThan(500);
        } catch {
          return; // the connection died with the server
        }
      }
    };
    const writers = Array.from({ length: 8 }, writer);
    await until('some sessions', () => acknowledged.size >= 50);
    await server.kill9();
    stop = true;
    await Promise.all(writers);

    server = await spawnServer(data.dir);
    for (const id of acknowledged.values()) {
      const got = await request(server.url, 'GET', `/api/v1/sessions/${id}`, { key: api_key });
      expect(got.status, `session ${id}`).toBe(200);
    }
    // A retry of an acknowledged request replays it rather than creating a second session.
    const [key, id] = [...acknowledged][0]!;
    const n0 = Number(key.split('-')[1]);
    const replay = await request(server.url, 'POST', '/api/v1/sessions', {
      key: api_key,
      headers: { 'idempotency-key': key },
      body: { amount_minor: 500 + n0, invoice_ref: `INV-CRASH-${n0}` },
    });
    expect(replay.status).toBe(201);
    expect((replay.body as { id: string }).id).toBe(id);
    await server.stop();
    const rows = inspect(data.file, (db) => db.prepare("SELECT count(*) AS n FROM checkout_sessions").get() as { n: number });
    expect(rows.n).toBeGreaterThanOrEqual(acknowledged.size);
  });

  it('delivers every terminal event after a kill -9 with deliveries pending', async () => {
    const data = dataDir();
    cleanup.push(data.rm);
    const receiver: Receiver = await startReceiver();
    cleanup.push(() => receiver.close());
    const env = { WEBHOOK_RETRY_DELAYS_S: '1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1' };
    let server: Child = await spawnServer(data.dir, env);
    cleanup.push(() => server.kill9());
    const { api_key } = await runAdmin<{ api_key: string }>(data.dir, ['integration:create', '--merchant', 'Webhook Drill', '--webhook-url', receiver.url]);

    const paid: string[] = [];
    for (let i = 0; i < 12; i++) {
      const s = await request(server.url, 'POST', '/api/v1/sessions', { key: api_key, body: { amount_minor: 2_000, invoice_ref: `INV-WH-${i}` } });
      expect(s.status).toBe(201);
      const id = (s.body as { id: string }).id;
      const quote = await request(server.url, 'GET', `/api/v1/checkout/sessions/${id}/quote`);
      const total = (quote.body as { surcharges: { momo: { total_minor: number } } }).surcharges.momo.total_minor;
      const a = await request(server.url, 'POST', `/api/v1/checkout/sessions/${id}/provider-attempts`, {
        body: { rail: 'momo', amount_minor: total, operator: 'mtn', phone: '0241234567' },
      });
      expect(a.status).toBe(201);
      const ok = await request(server.url, 'POST', `/api/v1/checkout/sessions/${id}/provider-attempts/${(a.body as { attempt_reference: string }).attempt_reference}/authorize`, {
        body: { code: '123456' },
      });
      expect(ok.status).toBe(200);
      paid.push(id);
    }
    await until('a refused delivery attempt', () => receiver.attempts > 0);
    await server.kill9();

    const events = inspect(data.file, (db) =>
      (db.prepare("SELECT id FROM events WHERE type = 'checkout.session.completed'").all() as Array<{ id: string }>).map((e) => e.id),
    );
    expect(events).toHaveLength(paid.length);
    expect(receiver.delivered.size).toBe(0);

    receiver.gated = false;
    server = await spawnServer(data.dir, env);
    await until('every event delivered', () => events.every((id) => receiver.delivered.has(id)), budget(30_000));
    await sleep(500);
    expect([...receiver.delivered.keys()].sort()).toEqual([...events].sort());
    await server.stop();
  });
});
