import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase, type OpenedDatabase } from '../../server/db/database';
import { runExclusive } from '../../server/db/leader';
import { sweep } from '../../server/jobs/sweeper';
import { randomIds } from '../../server/lib/ids';
import { createOutbox } from '../../server/modules/webhooks/outbox';
import { createTestApp, type TestContext } from '../support/app';
import { openSession } from '../support/checkout';
import { onPostgres } from '../support/database';

/**
 * The periodic jobs on several instances (docs/architecture.md, "Several instances"): the
 * sweeper of every instance may run at once and each due session still expires once, with one
 * event; `runExclusive` lets one instance at a time run a job on PostgreSQL (and always runs
 * on SQLite, where one process owns the file). "Another instance" is a second connection pool
 * on the same database, as a second process has.
 */
let t: TestContext;
let other: OpenedDatabase;

beforeAll(async () => {
  t = await createTestApp();
  other = t.config.databaseUrl ? connectDatabase({ databaseUrl: t.config.databaseUrl, databaseFile: '' }) : connectDatabase({ databaseUrl: null, databaseFile: t.config.databaseFile });
});
afterAll(async () => {
  await other.close();
  await t.close();
});

describe('periodic jobs on several instances', () => {
  // PostgreSQL only: two SQLite handles in one process would block each other's event loop
  // (better-sqlite3 waits synchronously on a lock), and one process owns a SQLite file anyway.
  it.runIf(onPostgres)('two sweepers at once expire each due session once, with one event each', async () => {
    const m = await t.merchant();
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push((await openSession(t, m, { expires_in_seconds: 60 })).id);
    t.clock.advanceSeconds(61);
    const deps = { clock: t.clock, ids: randomIds };
    const [a, b] = await Promise.all([sweep(t.database.db, { ...deps, outbox: t.outbox }), sweep(other.db, { ...deps, outbox: createOutbox() })]);
    expect(a.expiredSessions + b.expiredSessions).toBe(12);
    const rows = await t.database.db.selectFrom('checkout_sessions').select('status').where('id', 'in', ids).execute();
    expect(rows.every((r) => r.status === 'expired')).toBe(true);
    const events = await t.database.db.selectFrom('events').select(['session_id', 'type']).where('session_id', 'in', ids).execute();
    expect(events).toHaveLength(12);
    expect(new Set(events.map((e) => e.session_id)).size).toBe(12);
  });

  it(onPostgres ? 'runExclusive: while one instance runs a job, another skips it; then it runs again' : 'runExclusive always runs on SQLite', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let started!: () => void;
    const running = new Promise<void>((r) => (started = r));
    const first = runExclusive(t.database.db, 'test:job', async () => {
      started();
      await held;
    });
    await running;
    const second = await runExclusive(other.db, 'test:job', async () => undefined);
    expect(second).toBe(!onPostgres);
    expect(await runExclusive(other.db, 'test:another-job', async () => undefined)).toBe(true);
    release();
    expect(await first).toBe(true);
    expect(await runExclusive(other.db, 'test:job', async () => undefined)).toBe(true);
  });
});
