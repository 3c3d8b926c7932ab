import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { Redis } from 'ioredis';
import { operationCounts } from '../observe';

/**
 * The rate-limit counters shared by every instance (REDIS_URL; docs/operations.md, "Several
 * instances"): one Redis key per bucket and window, `INCR` + `PEXPIRE` in one Lua script, so N
 * instances behind a balancer enforce one RATE_LIMIT_PER_MIN between them.
 *
 * Redis being down or slow never fails a request: a command that errors (no connection: the
 * offline queue is off, so it errors at once) or takes longer than COMMAND_TIMEOUT_MS (1 s) is counted
 * in this instance's own memory instead, the way an instance without REDIS_URL counts. So the
 * limit degrades to "per instance" while Redis is away, rather than to "none" (the plugin's
 * skipOnError) or to 5xx. ioredis reconnects by itself; the first failure and the recovery are
 * logged, not every request.
 */
const COMMAND_TIMEOUT_MS = 1_000;
/** How long start-up waits for the first connection (then it counts locally until Redis answers). */
const CONNECT_WAIT_MS = 2_000;
const LOCAL_MAX_KEYS = 10_000;

const SCRIPT = `
local current = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if current == 1 or ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {current, ttl}`;

interface Log {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

type WithRateLimit = Redis & { paydeskRateLimit(key: string, windowMs: number): Promise<[number, number]> };

export interface SharedRateLimit {
  store: FastifyRateLimitStoreCtor;
  /** Resolves once connected, or failed to, or after CONNECT_WAIT_MS: the first requests then count in Redis, not locally. */
  connected(): Promise<void>;
  close(): void;
}

/** ioredis is loaded only here, when REDIS_URL is set: not a cost of every start. */
export async function redisRateLimitStore(url: string, prefix: string, log?: Log): Promise<SharedRateLimit> {
  const { Redis } = await import('ioredis');
  const redis = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 2_000, commandTimeout: COMMAND_TIMEOUT_MS }) as WithRateLimit;
  redis.defineCommand('paydeskRateLimit', { numberOfKeys: 1, lua: SCRIPT });
  let degraded = false;
  const fellBack = (err: unknown) => {
    if (degraded) return;
    degraded = true;
    operationCounts.rateLimitFallbacks++;
    log?.warn({ err }, 'rate limits: Redis unavailable, each instance counts alone until it is back');
  };
  redis.on('error', fellBack); // also keeps ioredis from reporting an unhandled 'error' event
  const recovered = () => {
    if (!degraded) return;
    degraded = false;
    log?.info({}, 'rate limits: Redis is back, counts are shared again');
  };

  const local = new Map<string, { count: number; resetAt: number }>();
  const countLocally = (key: string, windowMs: number) => {
    const now = Date.now();
    let entry = local.get(key);
    if (!entry || entry.resetAt <= now) {
      if (!entry && local.size >= LOCAL_MAX_KEYS) local.delete(local.keys().next().value as string);
      entry = { count: 0, resetAt: now + windowMs };
      local.set(key, entry);
    }
    entry.count++;
    return { current: entry.count, ttl: entry.resetAt - now };
  };

  class SharedStore implements FastifyRateLimitStore {
    incr(key: string, cb: (err: Error | null, result?: { current: number; ttl: number }) => void, timeWindow: number): void {
      redis.paydeskRateLimit(`${prefix}rl:${key}`, timeWindow).then(
        ([current, ttl]) => {
          recovered();
          cb(null, { current, ttl });
        },
        (err: unknown) => {
          fellBack(err);
          cb(null, countLocally(key, timeWindow));
        },
      );
    }
    child(): FastifyRateLimitStore {
      return this;
    }
  }
  const connected = () =>
    redis.status === 'ready'
      ? Promise.resolve()
      : new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            redis.off('ready', done);
            redis.off('error', done);
            resolve();
          };
          const timer = setTimeout(done, CONNECT_WAIT_MS);
          redis.once('ready', done);
          redis.once('error', done);
        });
  return { store: SharedStore, connected, close: () => redis.disconnect() };
}
