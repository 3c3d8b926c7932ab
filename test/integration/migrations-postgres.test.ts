import pg from 'pg';
import { sql } from 'kysely';
import { describe, expect, inject, it } from 'vitest';
import { connectDatabase, migrate } from '../../server/db/database';
import { migrations } from '../../server/db/migrations/index';
import { withDatabase } from '../support/postgres-cluster';
import { onPostgres } from '../support/database';

/**
 * One migration history for both engines: on an empty PostgreSQL database the whole history
 * applies, a second run applies nothing, and the result has what the app relies on (every
 * table, the rowid and identity columns, case-insensitive unique usernames, the append-only
 * audit log, the one-payable-slip rule).
 */
describe.skipIf(!onPostgres)('migrations on PostgreSQL', () => {
  it('apply the whole history to an empty database once, and build the schema the app relies on', async () => {
    const adminUrl = inject('pgAdminUrl');
    const name = `paydesk_mig_${process.pid}_${Date.now().toString(36)}`;
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    const d = connectDatabase({ databaseUrl: withDatabase(adminUrl, name), databaseFile: '' });
    try {
      await migrate(d.db);
      const applied = await sql<{ name: string }>`SELECT name FROM kysely_migration ORDER BY name`.execute(d.db);
      expect(applied.rows.map((r) => r.name)).toEqual(Object.keys(migrations));
      await migrate(d.db); // nothing left to do
      expect((await sql<{ n: number }>`SELECT count(*) AS n FROM kysely_migration`.execute(d.db)).rows[0]!.n).toBe(Object.keys(migrations).length);

      const tables = (await sql<{ table_name: string }>`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_name NOT LIKE 'kysely_%' ORDER BY 1`.execute(d.db)).rows.map((r) => r.table_name);
      expect(tables).toEqual(
        ['api_key_usage', 'api_keys', 'audit_log', 'audit_prune_marks', 'banks', 'branches', 'cash_deposits', 'cash_slips', 'cash_ups', 'checkout_sessions', 'events', 'exception_reviews', 'fee_rules', 'finance_day_totals', 'idempotency_keys', 'integrations', 'invoice_lines', 'invoice_summaries', 'invoice_summary_deltas', 'merchants', 'payment_attempts', 'revenue_line_syncs', 'revenue_lines', 'server_secrets', 'session_history', 'setup_links', 'staff_login_failures', 'staff_sessions', 'staff_users', 'webhook_deliveries', 'webhook_delivery_attempts', 'webhook_endpoints'].sort(),
      );
      const type = async (table: string, column: string) =>
        (await sql<{ data_type: string }>`SELECT data_type FROM information_schema.columns WHERE table_name = ${table} AND column_name = ${column}`.execute(d.db)).rows[0]?.data_type;
      expect(await type('checkout_sessions', 'amount_minor')).toBe('bigint');
      expect(await type('webhook_deliveries', 'rowid')).toBe('bigint');
      expect(await type('webhook_deliveries', 'held_at')).toBe('text'); // 0008 (its data repair is SQLite-only)
      expect(await type('invoice_lines', 'mode')).toBe('text');
      expect(await type('invoice_summaries', 'paid_minor')).toBe('bigint'); // 0017: a popular invoice's sum passes 2^31
      expect(await type('invoice_summary_deltas', 'seq')).toBe('bigint'); // 0021: an identity, the fold's order
      expect((await d.db.selectFrom('banks').select('code').execute()).length).toBeGreaterThan(0); // the seed ran
      // 0016: the id's prefix index; 0026: the session search's trigram indexes (pg_trgm), with the UTC month and day of creation (btree_gin) before them, written straight into the index (no pending list for the day walk to scan);
      // 0035: the merchant as the search filters by it (`merchant_id || ''`) in the same indexes, so a search reads only its merchant's entries.
      const indexes = (await sql<{ indexname: string; indexdef: string }>`SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'checkout_sessions' AND (indexname LIKE '%trgm' OR indexname = 'checkout_sessions_id_pattern') ORDER BY 1`.execute(d.db)).rows;
      expect(indexes.map((i) => i.indexdef.replace(/ ON public\./, ' ON '))).toEqual([
        "CREATE INDEX checkout_sessions_customer_name_day_trgm ON checkout_sessions USING gin (((merchant_id || ''::text)), substr(created_at, 1, 7), substr(created_at, 1, 10), customer_name gin_trgm_ops) WITH (fastupdate=off)",
        'CREATE INDEX checkout_sessions_id_pattern ON checkout_sessions USING btree (id text_pattern_ops)',
        "CREATE INDEX checkout_sessions_invoice_ref_day_trgm ON checkout_sessions USING gin (((merchant_id || ''::text)), substr(created_at, 1, 7), substr(created_at, 1, 10), invoice_ref gin_trgm_ops) WITH (fastupdate=off)",
      ]);

      const now = new Date().toISOString();
      await d.db.insertInto('staff_users').values({ id: 'u1', username: 'Ama', password_hash: 'x', role: 'teller', branch_id: null, merchant_id: null, created_at: now, disabled_at: null, must_change_password: 0, password_changed_at: null }).execute();
      await expect(d.db.insertInto('staff_users').values({ id: 'u2', username: 'AMA', password_hash: 'x', role: 'teller', branch_id: null, merchant_id: null, created_at: now, disabled_at: null, must_change_password: 0, password_changed_at: null }).execute()).rejects.toThrow(/unique/i);
      expect((await d.db.selectFrom('staff_users').select('id').where('username', '=', 'aMa').execute()).map((r) => r.id)).toEqual(['u1']);

      await d.db.insertInto('audit_log').values({ id: 'a1', at: now, actor_id: null, actor_username: 'x', actor_role: 'admin', action: 'test', target_type: 't', target_id: null, merchant_id: null, before: null, after: null, ip: null }).execute();
      await expect(d.db.updateTable('audit_log').set({ action: 'changed' }).execute()).rejects.toThrow(/append-only/);
      await expect(d.db.deleteFrom('audit_log').execute()).rejects.toThrow(/append-only/);
      // Row triggers do not fire on TRUNCATE: 0015's statement trigger refuses it on both audit tables.
      await expect(sql`TRUNCATE audit_log`.execute(d.db)).rejects.toThrow(/audit_log is append-only: TRUNCATE is refused/);
      await expect(sql`TRUNCATE audit_prune_marks`.execute(d.db)).rejects.toThrow(/audit_prune_marks is append-only: TRUNCATE is refused/);
      expect((await d.db.selectFrom('audit_log').select('id').execute()).map((r) => r.id)).toEqual(['a1']);
    } finally {
      await d.close();
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    }
  });
});
