import { createServer, type AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { createTestApp, type TestContext } from '../support/app';

/**
 * Rate limits across instances (REDIS_URL): two apps sharing one Redis enforce one limit
 * between them; without it each counts alone; a Redis that is down degrades to counting per
 * instance and never fails a request. Uses the Redis at PAYDESK_TEST_REDIS_URL or
 * 127.0.0.1:6379 under a key prefix of this run; the shared case is skipped when none answers.
 */
const REDIS_URL = process.env.PAYDESK_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `paydesk-test:${process.pid}:${Date.now().toString(36)}:`;

async function redisAnswers(): Promise<boolean> {
  const probe = new Redis(REDIS_URL, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0, connectTimeout: 1_000, retryStrategy: () => null });
  probe.on('error', () => undefined);
  try {
    await probe.connect();
    return (await probe.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}
const redisUp = await redisAnswers();

/** A loopback port nothing listens on: a Redis that is down. */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

const options = (t: TestContext, ip: string) => t.app.inject({ method: 'GET', url: '/api/v1/checkout/options', remoteAddress: ip });

describe('rate limits across instances', () => {
  const apps: TestContext[] = [];
  afterAll(async () => {
    for (const a of apps) await a.close();
    if (redisUp) {
      const r = new Redis(REDIS_URL);
      const keys = await r.keys(`${prefix}*`);
      if (keys.length) await r.del(...keys);
      r.disconnect();
    }
  });
  const app = async (env: Record<string, string>) => {
    const t = await createTestApp({ rateLimitPerMin: 4, env });
    apps.push(t);
    return t;
  };

  it.skipIf(!redisUp)('two instances sharing REDIS_URL enforce one limit between them', async () => {
    const env = { REDIS_URL, REDIS_KEY_PREFIX: `${prefix}shared:` };
    const [a, b] = [await app(env), await app(env)];
    const ip = '192.0.2.41';
    const statuses = [];
    for (const t of [a, b, a, b]) statuses.push((await options(t, ip)).statusCode);
    expect(statuses).toEqual([200, 200, 200, 200]);
    const fifthA = await options(a, ip);
    const fifthB = await options(b, ip);
    expect([fifthA.statusCode, fifthB.statusCode]).toEqual([429, 429]);
    expect(fifthB.json()).toMatchObject({ error: { code: 'RATE_LIMITED' } });
    // Another client address has its own bucket.
    expect((await options(b, '192.0.2.42')).statusCode).toBe(200);
  });

  it('without REDIS_URL each instance counts alone', async () => {
    const [a, b] = [await app({}), await app({})];
    const ip = '192.0.2.43';
    for (let i = 0; i < 4; i++) expect((await options(a, ip)).statusCode).toBe(200);
    expect((await options(a, ip)).statusCode).toBe(429);
    expect((await options(b, ip)).statusCode).toBe(200);
  });

  it('a Redis that is down never fails a request: each instance counts alone meanwhile', async () => {
    const t = await app({ REDIS_URL: `redis://127.0.0.1:${await closedPort()}`, REDIS_KEY_PREFIX: `${prefix}down:` });
    const ip = '192.0.2.44';
    const started = Date.now();
    for (let i = 0; i < 4; i++) expect((await options(t, ip)).statusCode).toBe(200);
    const limited = await options(t, ip);
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toMatchObject({ error: { code: 'RATE_LIMITED' } });
    expect(Date.now() - started, 'no request waits for the absent Redis').toBeLessThan(3_000);
  });
});
