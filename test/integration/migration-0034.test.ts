import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { Migrator, sql, type Kysely } from 'kysely';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { connectDatabase, migrate, openDatabase, type Db } from '../../server/db/database';
import { migrations } from '../../server/db/migrations/index';
import { computeFee, DEFAULT_FEE_RULES, type FeeRule } from '../../server/domain/fees';
import { feeRule } from '../../server/modules/payments/payments.repository';
import { RAILS, type Rail } from '../../shared/schemas/common';
import { withDatabase } from '../support/postgres-cluster';
import { onPostgres } from '../support/database';

// 0034 gives fee rules a currency: every rule set before is a GHS rule, so a GHS session is quoted
// exactly as before, and a session in another currency no longer borrows it.
describe(`migration 0034 on a populated ${onPostgres ? 'PostgreSQL' : 'SQLite'} database`, () => {
  const dir = mkdtempSync(join(tmpdir(), 'paydesk-m0034-'));
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c();
    rmSync(dir, { recursive: true, force: true });
  });

  async function emptyDatabase(): Promise<Db> {
    if (!onPostgres) {
      const d = openDatabase(join(dir, 'paydesk.sqlite'));
      cleanups.push(() => d.close());
      return d.db;
    }
    const adminUrl = inject('pgAdminUrl');
    const name = `paydesk_m0034_${process.pid}_${Date.now().toString(36)}`;
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    const d = connectDatabase({ databaseUrl: withDatabase(adminUrl, name), databaseFile: '' });
    cleanups.push(async () => {
      await d.close();
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    });
    return d.db;
  }

  it('keeps every rule as a GHS rule: GHS quotes are unchanged to the minor unit; an XOF session takes XOF defaults', async () => {
    const db = await emptyDatabase();
    const before = Object.fromEntries(Object.entries(migrations).filter(([name]) => name < '0034'));
    const { error } = await new Migrator({ db: db as Kysely<unknown>, provider: { getMigrations: async () => before } }).migrateToLatest();
    expect(error).toBeUndefined();

    const now = '2026-06-01T09:00:00.000Z';
    await sql`INSERT INTO merchants (id, name, created_at) VALUES ('m1', 'Old Merchant', ${now})`.execute(db);
    for (const id of ['i1', 'i2']) {
      await sql`INSERT INTO integrations (id, merchant_id, name, mode, allowed_rails, card_collection_mode, created_at, disabled_at)
        VALUES (${id}, 'm1', 'Default', 'test', '["momo","card","bank_transfer","cash"]', 'test_simulation', ${now}, NULL)`.execute(db);
    }
    // i1 has rules of its own for three rails (odd figures, so a default could not pass for them); i2 none.
    const own: Partial<Record<Rail, FeeRule>> = {
      momo: { percent_bps: 137, fixed_minor: 25, cap_minor: 1_999, bearer: 'payer' },
      bank_transfer: { percent_bps: 0, fixed_minor: 333, cap_minor: null, bearer: 'payer' },
      card: { percent_bps: 210, fixed_minor: 0, cap_minor: null, bearer: 'merchant' },
    };
    for (const [rail, r] of Object.entries(own)) {
      await sql`INSERT INTO fee_rules (id, integration_id, rail, percent_bps, fixed_minor, cap_minor, bearer, created_at, updated_at)
        VALUES (${`fr-${rail}`}, 'i1', ${rail}, ${r.percent_bps}, ${r.fixed_minor}, ${r.cap_minor}, ${r.bearer}, ${now}, ${now})`.execute(db);
    }
    // What each rail quoted before: the integration's rule, else the (GHS) default.
    const amounts = [1, 49, 50, 12_345, 199_999, 200_000, 19_653, 100_000_000_000_000];
    const quotedBefore = (integration: string) =>
      amounts.flatMap((amount) => RAILS.map((rail) => computeFee(amount, 'GHS', (integration === 'i1' ? own[rail] : undefined) ?? DEFAULT_FEE_RULES[rail])));
    const expected = { i1: quotedBefore('i1'), i2: quotedBefore('i2') };

    await migrate(db);

    const rows = await db.selectFrom('fee_rules').selectAll().orderBy('id').execute();
    expect(rows.map((r) => [r.id, r.integration_id, r.rail, r.currency, r.created_at])).toEqual([
      ['fr-bank_transfer', 'i1', 'bank_transfer', 'GHS', now],
      ['fr-card', 'i1', 'card', 'GHS', now],
      ['fr-momo', 'i1', 'momo', 'GHS', now],
    ]);
    for (const integration of ['i1', 'i2'] as const) {
      const after = [];
      for (const amount of amounts) for (const rail of RAILS) after.push(computeFee(amount, 'GHS', await feeRule(db, integration, 'GHS', rail)));
      expect(after).toEqual(expected[integration]);
    }
    // The GHS rule is not an XOF rule: an XOF session of i1 is quoted with XOF's own defaults.
    expect(await feeRule(db, 'i1', 'XOF', 'bank_transfer')).toEqual({ percent_bps: 0, fixed_minor: 100, cap_minor: null, bearer: 'payer' });
    expect(computeFee(250_000, 'XOF', await feeRule(db, 'i1', 'XOF', 'momo')).fee_minor).toBe(1_000);

    // One rule per (integration, currency, rail): an XOF rule beside the GHS one, never two of either.
    const insert = (id: string, currency: string) =>
      sql`INSERT INTO fee_rules (id, integration_id, rail, percent_bps, fixed_minor, cap_minor, bearer, created_at, updated_at, currency)
        VALUES (${id}, 'i1', 'momo', 100, 0, NULL, 'payer', ${now}, ${now}, ${currency})`.execute(db);
    await insert('fr-momo-xof', 'XOF');
    await expect(insert('fr-momo-xof-2', 'XOF')).rejects.toThrow(/unique/i);
    await expect(insert('fr-momo-bad', 'xof')).rejects.toThrow(/check/i);
  });
});
