import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { migrate, openDatabase, type OpenedDatabase } from '../../server/db/database';
import { migrations } from '../../server/db/migrations/index';

// Migrations are append-only: an empty database gets all of them, a second start applies
// nothing, and a database that ran a migration this build does not know is refused.
describe('database migrations', () => {
  const opened: OpenedDatabase[] = [];
  const dirs: string[] = [];
  const fresh = () => {
    const dir = mkdtempSync(join(tmpdir(), 'paydesk-migrations-'));
    dirs.push(dir);
    const d = openDatabase(join(dir, 'paydesk.sqlite'));
    opened.push(d);
    return d;
  };
  afterEach(async () => {
    for (const d of opened.splice(0)) await d.close();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  const applied = async (d: OpenedDatabase) =>
    (await sql<{ name: string }>`SELECT name FROM kysely_migration ORDER BY name`.execute(d.db)).rows.map((r) => r.name);

  it('applies every migration, in order, to an empty database, and nothing on a second start', async () => {
    const d = fresh();
    await migrate(d.db);
    expect(await applied(d)).toEqual(Object.keys(migrations));
    await migrate(d.db);
    expect(await applied(d)).toEqual(Object.keys(migrations));
    expect(d.sqlite.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(d.sqlite.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(d.sqlite.pragma('integrity_check', { simple: true })).toBe('ok');
    const banks = await d.db.selectFrom('banks').select('id').execute();
    expect(banks.length).toBeGreaterThan(0);
  });

  it('refuses to start on a database a newer build migrated (an applied migration it does not know)', async () => {
    const d = fresh();
    await migrate(d.db);
    await sql`INSERT INTO kysely_migration (name, timestamp) VALUES ('9999_from_the_future', ${new Date().toISOString()})`.execute(d.db);
    await expect(migrate(d.db)).rejects.toThrow(/migration/);
  });
});
