import { sql, type Kysely } from 'kysely';
import { ddl } from './ddl';

// Frozen. Fee rules carry their currency: a rule's fixed part and cap are minor units of that
// currency, and a session is quoted only with rules of its own currency. Every rule written
// before is a GHS rule (the only market they were set for), so GHS quotes are unchanged.
// One rule per (integration, currency, rail).
// SQLite cannot drop the old (integration, rail) UNIQUE: the table is rebuilt, rows copied.
// PostgreSQL: a column added with a default, which is dropped afterwards so every new rule names
// its currency. Upgrade cost: a rewrite of fee_rules only (a few rows per integration).
export async function up(db: Kysely<unknown>): Promise<void> {
  const { pg, int, table, check } = ddl(db);
  const CURRENCY = 'length(currency) = 3 AND currency = upper(currency)';
  if (pg) {
    await sql`ALTER TABLE fee_rules ADD COLUMN currency text NOT NULL DEFAULT 'GHS'`.execute(db);
    await sql`ALTER TABLE fee_rules ALTER COLUMN currency DROP DEFAULT`.execute(db);
    await sql.raw(`ALTER TABLE fee_rules ADD CONSTRAINT fee_rules_currency_code CHECK (${CURRENCY})`).execute(db);
    await sql`ALTER TABLE fee_rules DROP CONSTRAINT fee_rules_integration_rail`.execute(db);
    await sql`ALTER TABLE fee_rules ADD CONSTRAINT fee_rules_integration_currency_rail UNIQUE (integration_id, currency, rail)`.execute(db);
    return;
  }
  await table('fee_rules_next')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('integration_id', 'text', (c) => c.notNull().references('integrations.id'))
    .addColumn('rail', 'text', (c) => c.notNull().check(check("rail IN ('momo','card','bank_transfer','cash')")))
    .addColumn('percent_bps', int, (c) => c.notNull().check(check('percent_bps BETWEEN 0 AND 10000')))
    .addColumn('fixed_minor', int, (c) => c.notNull().check(check('fixed_minor >= 0')))
    .addColumn('cap_minor', int, (c) => c.check(check('cap_minor IS NULL OR cap_minor >= 0')))
    .addColumn('bearer', 'text', (c) => c.notNull().check(check("bearer IN ('payer','merchant')")))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull().check(check(CURRENCY)))
    .addUniqueConstraint('fee_rules_integration_currency_rail', ['integration_id', 'currency', 'rail'])
    .execute();
  await sql`INSERT INTO fee_rules_next (id, integration_id, rail, percent_bps, fixed_minor, cap_minor, bearer, created_at, updated_at, currency)
    SELECT id, integration_id, rail, percent_bps, fixed_minor, cap_minor, bearer, created_at, updated_at, 'GHS' FROM fee_rules`.execute(db);
  await sql`DROP TABLE fee_rules`.execute(db);
  await sql`ALTER TABLE fee_rules_next RENAME TO fee_rules`.execute(db);
}
