import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { inject } from 'vitest';
import { sql } from 'kysely';
import { connectDatabase, openDatabase } from '../../server/db/database';
import { migrations } from '../../server/db/migrations/index';
import { SCHEMA_RECHECK_MS } from '../../server/http/readiness';
import { withDatabase } from '../support/postgres-cluster';
import { createTestApp, type TestContext } from '../support/app';
import { createPostgresDatabase, onPostgres } from '../support/database';
import { dataDir, request, runAdmin, sleep, spawnServer, until } from '../support/drills';
import { paceNow } from '../support/pace';

/**
 * GET /readyz and `db:migrate`: ready only while the database answers, the
 * schema is current and the instance is not draining; a schema newer than the build is refused
 * at start; on PostgreSQL `serve` does not migrate, and turns ready once `db:migrate` has run.
 */
const latest = Object.keys(migrations).at(-1)!;
const FUTURE = '9999_from_a_newer_version';

describe('readiness in-process', () => {
  let t: TestContext;
  afterAll(async () => t?.close());

  it('/readyz answers 200 while ready; draining turns it 503 in the envelope while /healthz stays 200', async () => {
    t = await createTestApp();
    const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ status: 'ready' });
    t.app.readiness.drain();
    const draining = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(draining.statusCode).toBe(503);
    expect(draining.json()).toEqual({ error: { code: 'SERVICE_UNAVAILABLE', message: expect.stringMatching(/draining/), request_id: expect.any(String) } });
    expect((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
  });

  it('a schema behind the build answers 503 naming db:migrate, and 200 once the migration is recorded', async () => {
    const u = await createTestApp();
    try {
      const removed = await u.database.db.deleteFrom('kysely_migration' as never).where('name' as never, '=', latest as never).executeTakeFirst();
      expect(Number(removed.numDeletedRows)).toBe(1);
      const behind = await u.app.inject({ method: 'GET', url: '/readyz' });
      expect(behind.statusCode).toBe(503);
      // The caller learns what to run, not which migrations the database has (unauthenticated).
      const message = (behind.json() as { error: { message: string } }).error.message;
      expect(message).toMatch(/schema is behind this build.*npm run admin -- db:migrate/);
      expect(message).not.toContain(latest);
      await sql`insert into kysely_migration (name, timestamp) values (${latest}, ${new Date().toISOString()})`.execute(u.database.db);
      await sleep(SCHEMA_RECHECK_MS + 100);
      expect((await u.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
    } finally {
      await u.close();
    }
  });

  it('a database that does not answer makes it 503, /healthz still 200', async () => {
    const u = await createTestApp();
    await u.database.close();
    const res = await u.app.inject({ method: 'GET', url: '/readyz' });
    expect(res.statusCode).toBe(503);
    // Only which check failed: the driver's error (hosts, users, addresses) stays in the log.
    expect((res.json() as { error: { code: string; message: string } }).error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', message: 'not ready: the database is unreachable' });
    expect((await u.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    await u.app.close();
    rmSync(u.dataDir, { recursive: true, force: true }); // a PostgreSQL test database left is dropped by the run's teardown
  });
});

describe('db:migrate, schema versions and draining with npm run serve', { timeout: 120_000 }, () => {
  const dirs: Array<ReturnType<typeof dataDir>> = [];
  const drops: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const d of drops) await d();
    for (const d of dirs) d.rm();
  });
  const dir = () => {
    const d = dataDir('paydesk-ready-');
    dirs.push(d);
    return d;
  };

  /** A migrated database of this project's engine, and the env a process needs to use it. */
  async function migrated(): Promise<{ dir: string; env: Record<string, string>; run: (q: string) => Promise<void> }> {
    const d = dir();
    if (!onPostgres) {
      const out = await runAdmin<{ engine: string; applied: string[]; current: string }>(d.dir, ['db:migrate']);
      expect(out).toEqual({ engine: 'sqlite', applied: Object.keys(migrations), current: latest });
      return {
        dir: d.dir,
        env: {},
        run: async (q) => {
          const o = openDatabase(d.file);
          await sql.raw(q).execute(o.db);
          await o.close();
        },
      };
    }
    const created = await createPostgresDatabase();
    drops.push(created.drop);
    return {
      dir: d.dir,
      env: { DATABASE_URL: created.url },
      run: async (q) => {
        const o = connectDatabase({ databaseUrl: created.url, databaseFile: '' });
        await sql.raw(q).execute(o.db);
        await o.close();
      },
    };
  }

  it('db:migrate --json applies what is missing once, then nothing', async () => {
    const m = await migrated();
    expect(await runAdmin(m.dir, ['db:migrate'], m.env)).toEqual({ engine: onPostgres ? 'postgres' : 'sqlite', applied: [], current: latest });
  });

  it('refuses to start on a schema newer than it knows, in one line naming both versions', async () => {
    const m = await migrated();
    await m.run(`insert into kysely_migration (name, timestamp) values ('${FUTURE}', '2030-01-01T00:00:00.000Z')`);
    const started = spawnServer(m.dir, m.env);
    await expect(started).rejects.toThrow(new RegExp(`exited \\(1\\) before listening; stderr: (?:[^\\n]*\\n)*?paydesk: failed to start: the database schema is newer than this build: it has migration ${FUTURE} \\(this build knows up to ${latest}\\)[^\\n]*db:migrate[^\\n]*\\n$`));
  });

  it.runIf(onPostgres)('on PostgreSQL serve does not migrate: /readyz is 503 naming db:migrate until it has run, then 200', async () => {
    const adminUrl = inject('pgAdminUrl');
    const name = `paydesk_empty_${process.pid}_${Date.now().toString(36)}`;
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    drops.push(async () => {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    });
    const env = { DATABASE_URL: withDatabase(adminUrl, name) };
    const d = dir();
    const server = await spawnServer(d.dir, env);
    try {
      const before = await request(server.url, 'GET', '/readyz');
      expect(before.status).toBe(503);
      expect((before.body as { error: { message: string } }).error.message).toMatch(/schema is behind this build.*npm run admin -- db:migrate/);
      const out = await runAdmin<{ applied: string[]; current: string }>(d.dir, ['db:migrate'], env);
      expect(out).toMatchObject({ applied: Object.keys(migrations), current: latest });
      await until('ready after db:migrate', async () => (await request(server.url, 'GET', '/readyz')).status === 200, SCHEMA_RECHECK_MS * 3);
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });

  it('on SIGTERM /readyz turns 503 first while requests are still served, then the process exits 0', async () => {
    const m = await migrated();
    // The drain, the wait for its 503 and each probe's timeout scale with the machine's pace as
    // measured now (test/support/pace.ts): the drain must outlast the wait and the checks after it
    // however busy the machine is when this test runs.
    const pace = paceNow();
    const drainMs = Math.round(10_000 * pace);
    const server = await spawnServer(m.dir, { ...m.env, SHUTDOWN_DRAIN_MS: String(drainMs) });
    expect((await request(server.url, 'GET', '/readyz')).status).toBe(200);
    const exited = server.stop(20_000 + drainMs);
    // A probe as a balancer's: one that fails (a kept-alive connection met as the signal lands,
    // ECONNRESET) or outlasts its timeout counts as not yet seen, and the next one is sent.
    const probe = async () => {
      try {
        const res = await fetch(`${server.url}/readyz`, { signal: AbortSignal.timeout(Math.min(2000, Math.round(500 * pace))) });
        await res.text();
        return res.status;
      } catch {
        return undefined;
      }
    };
    await until('readyz 503 while draining', async () => (await probe()) === 503, Math.round(6_000 * pace));
    const during = await request(server.url, 'GET', '/readyz');
    expect(during.body).toEqual({ error: { code: 'SERVICE_UNAVAILABLE', message: expect.stringMatching(/draining/), request_id: expect.any(String) } });
    // Still serving while the balancer notices.
    expect((await request(server.url, 'GET', '/api/v1/checkout/options')).status).not.toBe(503);
    expect((await request(server.url, 'GET', '/healthz')).status).toBe(200);
    expect(await exited).toBe(0);
  });
});
