import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Migrator, sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { migrate, openDatabase } from '../../server/db/database';
import { migrations } from '../../server/db/migrations/index';

// 0009 rebuilds revenue_lines and invoice_lines (mode joins their unique keys) and adds the
// staff password columns: it must keep every row of a populated database.
describe('migration 0009 on a populated database', () => {
  const dir = mkdtempSync(join(tmpdir(), 'paydesk-m0009-'));
  const d = openDatabase(join(dir, 'paydesk.sqlite'));
  afterAll(async () => {
    await d.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps lines (as test data) and staff (no forced change), and the new keys allow the same code in live', async () => {
    const before = Object.fromEntries(Object.entries(migrations).filter(([name]) => name < '0009'));
    const { error } = await new Migrator({ db: d.db, provider: { getMigrations: async () => before } }).migrateToLatest();
    expect(error).toBeUndefined();
    const now = new Date().toISOString();
    await sql`INSERT INTO merchants (id, name, created_at) VALUES ('m1', 'Old Merchant', ${now})`.execute(d.db);
    await sql`INSERT INTO revenue_lines (id, merchant_id, code, name, active, source, last_synced_at, created_at, updated_at) VALUES ('r1', 'm1', 'WATER', 'Water', 1, 'sync', ${now}, ${now}, ${now})`.execute(d.db);
    await sql`INSERT INTO invoice_lines (id, merchant_id, invoice_ref, code, name, amount_minor, currency, remitted, remitted_at, created_at, updated_at) VALUES ('l1', 'm1', 'INV-1', 'WATER', 'Water', 700, 'GHS', 1, ${now}, ${now}, ${now})`.execute(d.db);
    await sql`INSERT INTO staff_users (id, username, password_hash, role, branch_id, merchant_id, created_at, disabled_at) VALUES ('s1', 'old.admin', 'scrypt$16384$8$1$AA$AA', 'admin', NULL, NULL, ${now}, NULL)`.execute(d.db);

    await migrate(d.db);

    expect(await d.db.selectFrom('revenue_lines').selectAll().execute()).toEqual([expect.objectContaining({ id: 'r1', mode: 'test', code: 'WATER', active: 1 })]);
    expect(await d.db.selectFrom('invoice_lines').selectAll().execute()).toEqual([expect.objectContaining({ id: 'l1', mode: 'test', amount_minor: 700, remitted: 1 })]);
    expect(await d.db.selectFrom('staff_users').selectAll().execute()).toEqual([expect.objectContaining({ id: 's1', must_change_password: 0, password_changed_at: null })]);
    await sql`INSERT INTO revenue_lines (id, merchant_id, mode, code, name, active, source, last_synced_at, created_at, updated_at) VALUES ('r2', 'm1', 'live', 'WATER', 'Water', 1, 'sync', ${now}, ${now}, ${now})`.execute(d.db);
    await expect(
      sql`INSERT INTO revenue_lines (id, merchant_id, mode, code, name, active, source, last_synced_at, created_at, updated_at) VALUES ('r3', 'm1', 'live', 'WATER', 'Water', 1, 'sync', ${now}, ${now}, ${now})`.execute(d.db),
    ).rejects.toThrow(/UNIQUE/);
    expect(d.sqlite.pragma('foreign_key_check')).toEqual([]);
    expect(d.sqlite.pragma('integrity_check', { simple: true })).toBe('ok');
  });
});
