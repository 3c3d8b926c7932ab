import { sql, type Kysely } from 'kysely';
import { ddl } from './ddl';

// Frozen: never edit a migration that has shipped; add a new one. Written with Kysely's
// schema builder so the same history runs on SQLite and PostgreSQL (ddl.ts); it creates the
// same SQLite schema as the raw SQL it replaced (test/integration/migrations-schema.test.ts).
export async function up(db: Kysely<unknown>): Promise<void> {
  const { pg, int, table, check } = ddl(db);

  await table('merchants')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await table('integrations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull().check(check("mode IN ('test','live')")))
    .addColumn('allowed_rails', 'text', (c) => c.notNull())
    .addColumn('card_collection_mode', 'text', (c) => c.notNull().check(check("card_collection_mode IN ('direct_card','test_simulation')")))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('disabled_at', 'text')
    .execute();
  await db.schema.createIndex('integrations_merchant').on('integrations').column('merchant_id').execute();

  await table('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('integration_id', 'text', (c) => c.notNull().references('integrations.id'))
    .addColumn('prefix', 'text', (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('mode', 'text', (c) => c.notNull().check(check("mode IN ('test','live')")))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_used_at', 'text')
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema.createIndex('api_keys_integration').on('api_keys').column('integration_id').execute();

  await table('webhook_endpoints')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('integration_id', 'text', (c) => c.notNull().references('integrations.id'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('previous_secret', 'text')
    .addColumn('previous_secret_expires_at', 'text')
    .addColumn('status', 'text', (c) => c.notNull().check(check("status IN ('active','disabled')")))
    .addColumn('disabled_reason', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhook_endpoints_integration').on('webhook_endpoints').column('integration_id').execute();

  await table('revenue_lines')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('code', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('active', int, (c) => c.notNull().check(check('active IN (0,1)')))
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('last_synced_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('revenue_lines_merchant_code', ['merchant_id', 'code'])
    .execute();

  await table('revenue_line_syncs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('integration_id', 'text', (c) => c.references('integrations.id'))
    .addColumn('created', int, (c) => c.notNull())
    .addColumn('updated', int, (c) => c.notNull())
    .addColumn('reactivated', int, (c) => c.notNull())
    .addColumn('deactivated', int, (c) => c.notNull())
    .addColumn('unchanged', int, (c) => c.notNull())
    .addColumn('total', int, (c) => c.notNull())
    .addColumn('error_count', int, (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('revenue_line_syncs_merchant').on('revenue_line_syncs').columns(['merchant_id', 'created_at']).execute();

  await table('invoice_lines')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('invoice_ref', 'text', (c) => c.notNull())
    .addColumn('code', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('amount_minor', int, (c) => c.notNull().check(check('amount_minor >= 1')))
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('remitted', int, (c) => c.notNull().defaultTo(0).check(check('remitted IN (0,1)')))
    .addColumn('remitted_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('invoice_lines_merchant_invoice_code', ['merchant_id', 'invoice_ref', 'code'])
    .execute();

  await table('checkout_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('integration_id', 'text', (c) => c.notNull().references('integrations.id'))
    .addColumn('status', 'text', (c) => c.notNull().check(check("status IN ('open','pending','success','failed','expired')")))
    .addColumn('amount_minor', int, (c) => c.notNull().check(check('amount_minor >= 1')))
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('invoice_ref', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('customer_name', 'text')
    .addColumn('customer_email', 'text')
    .addColumn('callback_url', 'text')
    .addColumn('metadata', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('paid_rail', 'text')
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('finalized_at', 'text')
    .execute();
  await db.schema.createIndex('checkout_sessions_merchant_invoice').on('checkout_sessions').columns(['merchant_id', 'invoice_ref']).execute();
  await db.schema.createIndex('checkout_sessions_merchant_created').on('checkout_sessions').columns(['merchant_id', 'created_at']).execute();
  await db.schema
    .createIndex('checkout_sessions_open_expiry')
    .on('checkout_sessions')
    .column('expires_at')
    .where(sql.ref('status'), 'in', ['open', 'pending'])
    .execute();

  await table('idempotency_keys')
    .addColumn('integration_id', 'text', (c) => c.notNull().references('integrations.id'))
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull().check(check("state IN ('in_flight','completed')")))
    .addColumn('response_status', int)
    .addColumn('response_body', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['integration_id', 'key'])
    .execute();
  await db.schema.createIndex('idempotency_keys_expiry').on('idempotency_keys').column('expires_at').execute();

  await table('banks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('code', 'text', (c) => c.notNull().unique())
    .addColumn('active', int, (c) => c.notNull().defaultTo(1).check(check('active IN (0,1)')))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await table('branches')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('bank_id', 'text', (c) => c.notNull().references('banks.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('code', 'text', (c) => c.notNull())
    .addColumn('active', int, (c) => c.notNull().defaultTo(1).check(check('active IN (0,1)')))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('branches_bank_code', ['bank_id', 'code'])
    .execute();

  // Usernames are unique and matched without regard to case: COLLATE NOCASE on SQLite, the
  // citext type on PostgreSQL (a trusted extension: any database owner may create it).
  if (pg) await sql`CREATE EXTENSION IF NOT EXISTS citext`.execute(db);
  await table('staff_users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('username', pg ? sql`citext` : 'text', (c) => (pg ? c.notNull().unique() : c.notNull().unique().modifyEnd(sql`collate nocase`)))
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull().check(check("role IN ('teller','supervisor','finance','admin')")))
    .addColumn('branch_id', 'text', (c) => c.references('branches.id'))
    .addColumn('merchant_id', 'text', (c) => c.references('merchants.id'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('disabled_at', 'text')
    .execute();
}
