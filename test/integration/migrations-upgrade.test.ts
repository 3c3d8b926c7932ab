import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { build } from '../../server/app';
import { loadConfig } from '../../server/config';
import { migrate, openDatabase, type OpenedDatabase } from '../../server/db/database';
import { migrations } from '../../server/db/migrations/index';
import { ManualClock } from '../../server/lib/clock';
import { randomIds } from '../../server/lib/ids';
import { PASSWORD } from '../support/backoffice';

/**
 * Upgrading a populated database: the dump in test/fixtures is what release 0006 left after real
 * use (every table holds rows). Every later migration must keep those rows, keep the file
 * consistent, and leave a database the current app serves: the merchant's old key still
 * authenticates, its paid session reads back, and a staff member signs in with the old hash.
 */
const FIXTURE = join(import.meta.dirname, '../fixtures/paydesk-0006.sql');
const FIXTURE_KEY = 'ak_test_F4uv4vjlLNCpOnKuvBOX8z3GiT700K7y';
const FIXTURE_PAID_SESSION = 'cs_test_pSE5yYUTLZKAy4jtW0J81h8b';
const FIXTURE_TELLER = 'teller1_48907';

describe('upgrading a populated 0006 database', () => {
  const cleanup: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const f of cleanup.splice(0).reverse()) await f();
  });

  function restoreFixture(): { dir: string; file: string } {
    const dir = mkdtempSync(join(tmpdir(), 'paydesk-upgrade-'));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'paydesk.sqlite');
    const raw = new SQLite(file);
    raw.exec(readFileSync(FIXTURE, 'utf8'));
    raw.close();
    return { dir, file };
  }

  const tablesOf = (d: OpenedDatabase) =>
    (d.sqlite.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'kysely_%'`).all() as Array<{ name: string }>).map((r) => r.name);

  /** Every row of a table as a set of primary-key strings (rowid for tables without one). */
  function keysOf(d: OpenedDatabase, table: string): string[] {
    const pk = (d.sqlite.prepare(`SELECT name FROM pragma_table_info(?) WHERE pk > 0 ORDER BY pk`).all(table) as Array<{ name: string }>).map((c) => `"${c.name}"`);
    const cols = pk.length > 0 ? pk.join(` || '|' || `) : 'rowid';
    return (d.sqlite.prepare(`SELECT ${cols} AS k FROM "${table}" ORDER BY 1`).all() as Array<{ k: string | number }>).map((r) => String(r.k));
  }

  it('keeps every row of every table through all later migrations', async () => {
    const { file } = restoreFixture();
    const d = openDatabase(file);
    cleanup.push(() => d.close());
    const before = new Map(tablesOf(d).map((table) => [table, keysOf(d, table)]));
    for (const [table, keys] of before) expect(keys.length, `fixture table ${table} has rows`).toBeGreaterThan(0);

    await migrate(d.db);

    const applied = (d.sqlite.prepare('SELECT name FROM kysely_migration ORDER BY name').all() as Array<{ name: string }>).map((r) => r.name);
    expect(applied).toEqual(Object.keys(migrations));
    for (const [table, keys] of before) {
      expect(tablesOf(d), 'no table of release 0006 disappears').toContain(table);
      expect(keysOf(d, table), `rows of ${table} after the upgrade`).toEqual(expect.arrayContaining(keys));
    }
    expect(d.sqlite.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(d.sqlite.prepare('PRAGMA foreign_key_check').all()).toEqual([]);
  });

  it('serves the upgraded database: old key, old session, old staff password', async () => {
    const { dir, file } = restoreFixture();
    const d = openDatabase(file);
    cleanup.push(() => d.close());
    await migrate(d.db);
    const config = loadConfig({ DATA_DIR: dir, RATE_LIMIT_PER_MIN: '0', PUBLIC_BASE_URL: 'http://paydesk.test' });
    const app = await build({ db: d.db, clock: new ManualClock(new Date()), ids: randomIds, config, logger: false });
    cleanup.push(() => app.close());

    const session = await app.inject({ method: 'GET', url: `/api/v1/sessions/${FIXTURE_PAID_SESSION}`, headers: { authorization: `Bearer ${FIXTURE_KEY}` } });
    expect(session.statusCode, session.body).toBe(200);
    expect(session.json()).toMatchObject({ id: FIXTURE_PAID_SESSION, status: 'success', invoice_ref: 'FIX-1', amount_minor: 10_000 });

    const lines = await app.inject({ method: 'GET', url: '/api/v1/invoice-lines?invoice_ref=FIX-1', headers: { authorization: `Bearer ${FIXTURE_KEY}` } });
    expect(lines.statusCode, lines.body).toBe(200);
    expect((lines.json() as { total_minor: number }).total_minor).toBe(10_000);

    const login = await app.inject({ method: 'POST', url: '/api/backoffice/v1/auth/login', payload: { username: FIXTURE_TELLER, password: PASSWORD } });
    expect(login.statusCode, login.body).toBe(200);
  });
});
