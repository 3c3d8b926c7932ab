import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config';
import { openDatabase, type Db } from '../../server/db/database';
import { startServer, type RunningServer } from '../../server/runtime';
import { createPostgresDatabase, onPostgres } from '../support/database';

/**
 * A commit is on disk before anything is answered: the server's own connections, opened by
 * `startServer` (what `npm run serve` and the desktop app run), sync every commit. SQLite:
 * `synchronous = FULL` (test/integration/durability-strace.test.ts watches the syncs happen);
 * PostgreSQL: `synchronous_commit` on although the test database's default is off.
 */
describe('synced commits on the server’s own connections', () => {
  let dataDir: string;
  let server: RunningServer | undefined;
  let pgUrl: string | undefined;
  let drop: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'paydesk-durability-'));
    if (onPostgres) {
      const created = await createPostgresDatabase();
      pgUrl = created.url;
      drop = created.drop;
    }
    const config = loadConfig({ DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', RATE_LIMIT_PER_MIN: '0', ...(pgUrl ? { DATABASE_URL: pgUrl } : {}) });
    server = await startServer(config, { logger: false });
  });
  afterAll(async () => {
    await server?.stop();
    await drop?.().catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  });

  const setting = async (db: Db, name: string): Promise<string> => {
    const { rows } = await sql<{ value: string }>`select current_setting(${name}) as value`.execute(db);
    return rows[0]!.value;
  };

  it.runIf(onPostgres)('PostgreSQL: every pooled connection commits with synchronous_commit on, though the database default is off', async () => {
    // The test database's own default (test/support/database.ts turns it off), seen by a plain connection.
    const plain = new pg.Client({ connectionString: pgUrl });
    await plain.connect();
    try {
      expect((await plain.query('show synchronous_commit')).rows[0].synchronous_commit).toBe('off');
    } finally {
      await plain.end();
    }
    const db = server!.database.db;
    // Ten transactions at once hold several connections of the pool (the background jobs use it
    // too, so not always ten): each says what it commits with.
    const seen = await Promise.all(
      Array.from({ length: 10 }, () =>
        db.transaction().execute(async (trx) => {
          const value = await setting(trx, 'synchronous_commit');
          await sql`select pg_sleep(0.05)`.execute(trx);
          const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx);
          return { value, pid: rows[0]!.pid };
        }),
      ),
    );
    expect(new Set(seen.map((s) => s.pid)).size).toBeGreaterThan(5);
    expect(seen.map((s) => s.value)).toEqual(Array(10).fill('on'));
    expect(await setting(db, 'synchronous_commit')).toBe('on');
  });

  it.runIf(onPostgres)('PostgreSQL: a stronger setting the operator chose for a standby is kept', async () => {
    const admin = new pg.Client({ connectionString: pgUrl });
    await admin.connect();
    const name = new URL(pgUrl!).pathname.slice(1);
    try {
      await admin.query(`ALTER DATABASE ${name} SET synchronous_commit = remote_apply`);
      const config = loadConfig({ DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', RATE_LIMIT_PER_MIN: '0', DATABASE_URL: pgUrl! });
      const other = await startServer(config, { logger: false });
      try {
        expect(await setting(other.database.db, 'synchronous_commit')).toBe('remote_apply');
      } finally {
        await other.stop();
      }
    } finally {
      await admin.query(`ALTER DATABASE ${name} SET synchronous_commit = off`);
      await admin.end();
    }
  });

  it.runIf(!onPostgres)('SQLite: the server’s connection and a CLI’s (openDatabase) sync the WAL at every commit (synchronous = FULL)', () => {
    // PRAGMA synchronous: 0 OFF, 1 NORMAL, 2 FULL, 3 EXTRA.
    expect(server!.database.sqlite.pragma('synchronous', { simple: true })).toBe(2);
    expect(server!.database.sqlite.pragma('journal_mode', { simple: true })).toBe('wal');
    const cli = openDatabase(join(dataDir, 'paydesk.sqlite'));
    try {
      expect(cli.sqlite.pragma('synchronous', { simple: true })).toBe(2);
    } finally {
      void cli.close();
    }
  });
});
