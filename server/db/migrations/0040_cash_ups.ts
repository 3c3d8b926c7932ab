import type { Kysely } from 'kysely';
import { ddl } from './ddl';

// Frozen. The teller's cash-up: one row per teller, business day (the server's time zone,
// `YYYY-MM-DD`) and currency. The opening float (an amount, or the notes and coins handed over as
// JSON counts), the count at close by denomination (JSON counts, and its value), then the teller's
// sign-off, which freezes the count and the day's figures (approved and under-review deposits,
// rejected ones, what the drawer should hold), and the supervisor's sign-off (a different person,
// with an optional note).
export async function up(db: Kysely<unknown>): Promise<void> {
  const { int, table, check } = ddl(db);
  await table('cash_ups')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('teller_id', 'text', (c) => c.notNull().references('staff_users.id'))
    .addColumn('business_day', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(check("status IN ('open', 'teller_signed', 'supervisor_signed')")))
    .addColumn('float_minor', int)
    .addColumn('float_denominations', 'text')
    .addColumn('counted_minor', int)
    .addColumn('count_denominations', 'text')
    .addColumn('approved_minor', int)
    .addColumn('under_review_minor', int)
    .addColumn('rejected_minor', int)
    .addColumn('expected_minor', int)
    .addColumn('teller_signed_at', 'text')
    .addColumn('supervisor_id', 'text', (c) => c.references('staff_users.id'))
    .addColumn('supervisor_signed_at', 'text')
    .addColumn('supervisor_note', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('cash_ups_teller_day_currency', ['teller_id', 'business_day', 'currency'])
    .execute();
  // The supervisor's queue: counts waiting for sign-off, oldest day first.
  await db.schema.createIndex('cash_ups_status_day').on('cash_ups').columns(['status', 'business_day']).execute();
}
