import { sql, type Kysely } from 'kysely';
import { ddl } from './ddl';

// Frozen: hosted checkout (fee rules, payment attempts, cash slips and deposits), the
// session history and the outbox of terminal events.
export async function up(db: Kysely<unknown>): Promise<void> {
  const { pg, int, table, check } = ddl(db);
  const RAILS = "rail IN ('momo','card','bank_transfer','cash')";

  await table('fee_rules')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('integration_id', 'text', (c) => c.notNull().references('integrations.id'))
    .addColumn('rail', 'text', (c) => c.notNull().check(check(RAILS)))
    .addColumn('percent_bps', int, (c) => c.notNull().check(check('percent_bps BETWEEN 0 AND 10000')))
    .addColumn('fixed_minor', int, (c) => c.notNull().check(check('fixed_minor >= 0')))
    .addColumn('cap_minor', int, (c) => c.check(check('cap_minor IS NULL OR cap_minor >= 0')))
    .addColumn('bearer', 'text', (c) => c.notNull().check(check("bearer IN ('payer','merchant')")))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('fee_rules_integration_rail', ['integration_id', 'rail'])
    .execute();

  await table('payment_attempts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('session_id', 'text', (c) => c.notNull().references('checkout_sessions.id'))
    .addColumn('rail', 'text', (c) => c.notNull().check(check(RAILS)))
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('provider_reference', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(check("status IN ('pending','succeeded','declined','expired')")))
    .addColumn('raw_status', 'text', (c) => c.notNull())
    .addColumn('decline_reason', 'text')
    .addColumn('base_minor', int, (c) => c.notNull())
    .addColumn('fee_minor', int, (c) => c.notNull())
    .addColumn('amount_charged_minor', int, (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('operator', 'text')
    .addColumn('phone', 'text')
    .addColumn('phone_last4', 'text')
    .addColumn('account_name', 'text')
    .addColumn('payment_reference', 'text', (c) => c.unique())
    .addColumn('card_brand', 'text')
    .addColumn('card_last4', 'text')
    .addColumn('scenario', 'text', (c) => c.notNull().defaultTo('normal'))
    .addColumn('resend_count', int, (c) => c.notNull().defaultTo(0))
    .addColumn('code_sent_at', 'text')
    .addColumn('prompt_expires_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('finalized_at', 'text')
    .execute();
  await db.schema.createIndex('payment_attempts_session').on('payment_attempts').columns(['session_id', 'created_at']).execute();
  await db.schema.createIndex('payment_attempts_pending').on('payment_attempts').column('prompt_expires_at').where(sql.ref('status'), '=', 'pending').execute();

  await table('cash_slips')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('token', 'text', (c) => c.notNull().unique())
    // PostgreSQL would name this UNIQUE's index cash_slips_reference_key, the name 0010 gives
    // another index: there it is a named table constraint.
    .addColumn('reference', 'text', (c) => (pg ? c.notNull() : c.notNull().unique()))
    .addColumn('session_id', 'text', (c) => c.notNull().references('checkout_sessions.id'))
    .addColumn('amount_minor', int, (c) => c.notNull().check(check('amount_minor >= 1')))
    .addColumn('base_minor', int, (c) => c.notNull())
    .addColumn('fee_minor', int, (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(check("status IN ('active','under_review','used','voided','expired')")))
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .$call((t) => (pg ? t.addUniqueConstraint('cash_slips_reference_unique', ['reference']) : t))
    .execute();
  await db.schema.createIndex('cash_slips_session').on('cash_slips').columns(['session_id', 'status']).execute();
  // The database itself refuses a second payable slip for one session.
  await db.schema.createIndex('cash_slips_one_payable').unique().on('cash_slips').column('session_id').where(sql.ref('status'), 'in', ['active', 'under_review']).execute();

  await table('cash_deposits')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('slip_id', 'text', (c) => c.notNull().references('cash_slips.id'))
    .addColumn('session_id', 'text', (c) => c.notNull().references('checkout_sessions.id'))
    .addColumn('amount_minor', int, (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('branch_id', 'text', (c) => c.references('branches.id'))
    .addColumn('note', 'text')
    .addColumn('status', 'text', (c) => c.notNull().check(check("status IN ('under_review','approved','rejected')")))
    .addColumn('recorded_by', 'text', (c) => c.notNull().references('staff_users.id'))
    .addColumn('reviewed_by', 'text', (c) => c.references('staff_users.id'))
    .addColumn('review_reason', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('reviewed_at', 'text')
    .execute();
  await db.schema.createIndex('cash_deposits_status').on('cash_deposits').columns(['status', 'created_at']).execute();
  await db.schema.createIndex('cash_deposits_one_open').unique().on('cash_deposits').column('slip_id').where(sql.ref('status'), '=', 'under_review').execute();

  await table('session_history')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('session_id', 'text', (c) => c.notNull().references('checkout_sessions.id'))
    .addColumn('from_status', 'text', (c) => c.notNull())
    .addColumn('to_status', 'text', (c) => c.notNull())
    .addColumn('cause', 'text', (c) => c.notNull())
    .addColumn('at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('session_history_session').on('session_history').columns(['session_id', 'at']).execute();

  await table('events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('session_id', 'text', (c) => c.notNull().references('checkout_sessions.id'))
    .addColumn('integration_id', 'text', (c) => c.notNull().references('integrations.id'))
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('events_integration').on('events').columns(['integration_id', 'created_at']).execute();
  // Each terminal state is entered once: one event per session and type.
  await db.schema.createIndex('events_one_per_session_type').unique().on('events').columns(['session_id', 'type']).execute();
}
