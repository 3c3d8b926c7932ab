import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FALLBACK_AUTOCHECKPOINT_PAGES, startCheckpointer } from '../../server/db/checkpointer';
import { createTestApp, type TestContext } from '../support/app';
import { onPostgres } from '../support/database';
import { openSession } from '../support/checkout';

/**
 * Issue 18: on SQLite the WAL is copied into the database file by a worker thread with its own
 * connection, not by whichever commit of the server crossed SQLite's automatic checkpoint (that
 * commit held the event loop 20 to 290 ms on a year of data). Nothing of the kind on PostgreSQL.
 */
describe('background WAL checkpoints', () => {
  let t: TestContext;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t.close());

  it.runIf(onPostgres)('PostgreSQL: there is no checkpointer to start', async () => {
    expect(await startCheckpointer(t.database.db, false)).toBeNull();
  });

  it.runIf(!onPostgres)('SQLite: the worker checkpoints what the server writes; the server connection only past a distant limit, and as before once it stops', async () => {
    const sqlite = t.database.sqlite;
    const file = sqlite.name;
    const digest = () => createHash('sha256').update(readFileSync(file)).digest('hex');
    const m = await t.merchant('Checkpoints');
    sqlite.pragma('wal_checkpoint(TRUNCATE)'); // start from an empty WAL
    const checkpointer = await startCheckpointer(t.database.db, false);
    expect(checkpointer).not.toBeNull();
    try {
      expect(sqlite.pragma('wal_autocheckpoint', { simple: true })).toBe(FALLBACK_AUTOCHECKPOINT_PAGES);
      const before = digest();
      for (let i = 0; i < 20; i++) await openSession(t, m, { invoice_ref: `CKPT-${i}` });
      // Far fewer pages than the server connection's own limit: only the worker can have written the file.
      await expect.poll(digest, { timeout: 10_000, interval: 100 }).not.toBe(before);
      const rows = sqlite.prepare('SELECT count(*) AS n FROM checkout_sessions').get() as { n: number };
      expect(rows.n).toBeGreaterThanOrEqual(20);
    } finally {
      await checkpointer!.stop();
    }
    expect(sqlite.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
  });
});
