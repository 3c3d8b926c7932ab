import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../support/app';
import { databaseUrls, onPostgres } from '../support/database';
import { purgeExpiredIdempotencyKeys } from '../../server/modules/idempotency/idempotency.service';
import { prune } from '../../server/modules/retention/retention.service';
import { randomIds } from '../../server/lib/ids';

/**
 * Purging expired Idempotency-Keys (the housekeeping timer and `db:prune`) never deletes a key
 * a concurrent request has just reused: the reuse's upsert gives the row a new expires_at, and the
 * purge's DELETE, waiting on that row's lock, re-checks it on the row's current version.
 */
describe('idempotency key purge', () => {
  let t: TestContext;
  let integrationId: string;
  const past = () => new Date(t.clock.now().getTime() - 60_000).toISOString();
  const future = () => new Date(t.clock.now().getTime() + 86_400_000).toISOString();

  async function key(expiresAt: string): Promise<string> {
    const k = `k-${randomIds.token('', 12)}`;
    await t.database.db
      .insertInto('idempotency_keys')
      .values({ integration_id: integrationId, key: k, method: 'POST', path: '/v1/x', fingerprint: 'f', state: 'completed', response_status: 200, response_body: '{}', created_at: past(), expires_at: expiresAt })
      .execute();
    return k;
  }
  const exists = async (k: string) => (await t.database.db.selectFrom('idempotency_keys').select('key').where('key', '=', k).executeTakeFirst()) !== undefined;

  beforeAll(async () => {
    t = await createTestApp();
    integrationId = (await t.merchant('Purge')).integration_id;
  });
  afterAll(async () => t?.close());

  it('removes expired keys in batches and keeps live ones', async () => {
    const expired = await Promise.all([1, 2, 3, 4, 5].map(() => key(past())));
    const live = await key(future());
    expect(await purgeExpiredIdempotencyKeys(t.database.db, t.clock, 2)).toBe(5);
    for (const k of expired) expect(await exists(k)).toBe(false);
    expect(await exists(live)).toBe(true);
  });

  const purges = [
    ['the housekeeping purge', () => purgeExpiredIdempotencyKeys(t.database.db, t.clock, 100)],
    ['db:prune', async () => (await prune(t.database.db, { clock: t.clock, ids: randomIds, retention: t.config.retention }, { batch: 100 }))[0]!.rows],
  ] as const;

  for (const [name, purge] of purges) {
    it.skipIf(!onPostgres)(`${name} keeps a key reused while it waited on the row (PostgreSQL)`, async () => {
      const k = await key(past());
      const reuse = new pg.Client({ connectionString: databaseUrls.get(t.dataDir) });
      await reuse.connect();
      try {
        // A request reusing the key: its upsert holds the row, refreshed, until it commits.
        await reuse.query('BEGIN');
        await reuse.query('UPDATE idempotency_keys SET expires_at = $1 WHERE integration_id = $2 AND key = $3', [future(), integrationId, k]);
        const purged = purge();
        // The purge picked the key (still expired for it) and now waits for the reuse's lock.
        for (let i = 0; i < 100; i++) {
          const w = await reuse.query("SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'");
          if (w.rowCount) break;
          await new Promise((r) => setTimeout(r, 20));
        }
        await reuse.query('COMMIT');
        expect(await purged).toBe(0);
        expect(await exists(k)).toBe(true);
      } finally {
        await reuse.end();
      }
    });
  }
});
