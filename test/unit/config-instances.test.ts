import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config';

/** The variables of several instances (README, docs/operations.md): defaults, parsing, and a bad value named. */
describe('config: REDIS_URL, REDIS_KEY_PREFIX, SHUTDOWN_DRAIN_MS, DATABASE_POOL_SIZE', () => {
  it('defaults to no Redis, prefix paydesk:, no drain delay, a pool of 10', () => {
    const c = loadConfig({});
    expect({ redisUrl: c.redisUrl, redisKeyPrefix: c.redisKeyPrefix, shutdownDrainMs: c.shutdownDrainMs, databasePoolSize: c.databasePoolSize }).toEqual({
      redisUrl: null,
      redisKeyPrefix: 'paydesk:',
      shutdownDrainMs: 0,
      databasePoolSize: 10,
    });
  });

  it('reads them', () => {
    const c = loadConfig({ REDIS_URL: 'rediss://cache.internal:6380/2', REDIS_KEY_PREFIX: 'branch-a:', SHUTDOWN_DRAIN_MS: '5000', DATABASE_POOL_SIZE: '5' });
    expect({ redisUrl: c.redisUrl, redisKeyPrefix: c.redisKeyPrefix, shutdownDrainMs: c.shutdownDrainMs, databasePoolSize: c.databasePoolSize }).toEqual({
      redisUrl: 'rediss://cache.internal:6380/2',
      redisKeyPrefix: 'branch-a:',
      shutdownDrainMs: 5000,
      databasePoolSize: 5,
    });
  });

  it.each([
    [{ REDIS_URL: 'http://cache:6379' }, /REDIS_URL: must be a redis:\/\//],
    [{ REDIS_KEY_PREFIX: 'two words' }, /REDIS_KEY_PREFIX: must not contain spaces/],
    [{ SHUTDOWN_DRAIN_MS: '-1' }, /SHUTDOWN_DRAIN_MS: must be 0 or more/],
    [{ SHUTDOWN_DRAIN_MS: '1.5' }, /SHUTDOWN_DRAIN_MS: must be a whole number/],
    [{ SHUTDOWN_DRAIN_MS: '600000' }, /SHUTDOWN_DRAIN_MS: must be at most 120000/],
    [{ DATABASE_POOL_SIZE: '0' }, /DATABASE_POOL_SIZE: must be at least 1/],
    [{ DATABASE_POOL_SIZE: 'ten' }, /DATABASE_POOL_SIZE: must be a whole number of connections/],
    [{ DATABASE_POOL_SIZE: '2.5' }, /DATABASE_POOL_SIZE: must be a whole number of connections/],
    [{ DATABASE_POOL_SIZE: '500' }, /DATABASE_POOL_SIZE: must be at most 200/],
  ])('refuses %o naming the variable', (env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
  });
});
