import { sql, type Kysely } from 'kysely';
import { ddl } from './ddl';

// Frozen: staff password lifecycle, and test/live separation of the merchant catalogue.
export async function up(db: Kysely<unknown>): Promise<void> {
  // Set when an admin creates or resets an account: the user must choose their own password
  // before any other call. Existing accounts keep working as they are.
  const { pg, int, check } = ddl(db);
  await db.schema
    .alterTable('staff_users')
    .addColumn('must_change_password', int, (c) => c.notNull().defaultTo(0).check(check('must_change_password IN (0,1)')))
    .execute();
  await db.schema.alterTable('staff_users').addColumn('password_changed_at', 'text').execute();
  if (pg) {
    // PostgreSQL changes the constraints in place; the SQLite rebuild below is for its limited ALTER.
    for (const t of ['revenue_lines', 'invoice_lines']) {
      await db.schema
        .alterTable(t)
        .addColumn('mode', 'text', (c) => c.notNull().defaultTo('test').check(check("mode IN ('test','live')")))
        .execute();
    }
    await db.schema.alterTable('revenue_lines').dropConstraint('revenue_lines_merchant_code').execute();
    await db.schema.alterTable('revenue_lines').addUniqueConstraint('revenue_lines_merchant_mode_code', ['merchant_id', 'mode', 'code']).execute();
    await db.schema.alterTable('invoice_lines').dropConstraint('invoice_lines_merchant_invoice_code').execute();
    await db.schema.alterTable('invoice_lines').addUniqueConstraint('invoice_lines_merchant_mode_invoice_code', ['merchant_id', 'mode', 'invoice_ref', 'code']).execute();
    return;
  }

  // Revenue lines and invoice lines are kept per mode (test/live), like sessions: a test key's
  // sync must never deactivate or rename what live invoices use. SQLite cannot change a UNIQUE
  // constraint in place, so both tables are rebuilt; every existing row is test data, because
  // live keys could not be created before this migration.
  await sql`
    CREATE TABLE revenue_lines_new (
      id TEXT PRIMARY KEY,
      merchant_id TEXT NOT NULL REFERENCES merchants(id),
      mode TEXT NOT NULL DEFAULT 'test' CHECK (mode IN ('test','live')),
      code TEXT NOT NULL,
      name TEXT NOT NULL,
      active INTEGER NOT NULL CHECK (active IN (0,1)),
      source TEXT NOT NULL,
      last_synced_at TEXT NOT NULL,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      UNIQUE (merchant_id, mode, code)
    ) STRICT`.execute(db);
  await sql`
    INSERT INTO revenue_lines_new (id, merchant_id, mode, code, name, active, source, last_synced_at, created_at, updated_at)
    SELECT id, merchant_id, 'test', code, name, active, source, last_synced_at, created_at, updated_at FROM revenue_lines`.execute(db);
  await sql`DROP TABLE revenue_lines`.execute(db);
  await sql`ALTER TABLE revenue_lines_new RENAME TO revenue_lines`.execute(db);

  await sql`
    CREATE TABLE invoice_lines_new (
      id TEXT PRIMARY KEY,
      merchant_id TEXT NOT NULL REFERENCES merchants(id),
      mode TEXT NOT NULL DEFAULT 'test' CHECK (mode IN ('test','live')),
      invoice_ref TEXT NOT NULL,
      code TEXT NOT NULL,
      name TEXT NOT NULL,
      amount_minor INTEGER NOT NULL CHECK (amount_minor >= 1),
      currency TEXT NOT NULL,
      remitted INTEGER NOT NULL DEFAULT 0 CHECK (remitted IN (0,1)),
      remitted_at TEXT,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      UNIQUE (merchant_id, mode, invoice_ref, code)
    ) STRICT`.execute(db);
  await sql`
    INSERT INTO invoice_lines_new (id, merchant_id, mode, invoice_ref, code, name, amount_minor, currency, remitted, remitted_at, created_at, updated_at)
    SELECT id, merchant_id, 'test', invoice_ref, code, name, amount_minor, currency, remitted, remitted_at, created_at, updated_at FROM invoice_lines`.execute(db);
  await sql`DROP TABLE invoice_lines`.execute(db);
  await sql`ALTER TABLE invoice_lines_new RENAME TO invoice_lines`.execute(db);
}
