import { sql, type Kysely } from 'kysely';

// Frozen. Every periodic query finds its rows through an index.
// - The sweeper asks for `status = 'open' AND expires_at <= now`; the index of 0001 is
//   partial on `status IN ('open','pending')`, which neither engine matches to `= 'open'`,
//   so the sweep scanned the whole table every second. Replaced by one on open sessions
//   only (pending ones are never expired by the sweeper: their attempt decides first).
// - Slips: the sweep's `status = 'active' AND expires_at <= now`.
// - Provider reconciliation: pending attempts by `updated_at`.
// And the reads of the back office that scanned (test/integration/query-plans.test.ts):
// - a session's deposits and its events' delivery attempts (session detail);
// - the deposit list in date order;
// - the amount search: what an attempt or an approved deposit collected;
// - the payments CSV, read in (finalized_at, id) batches of a merchant's successful sessions.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('checkout_sessions_open_expiry').execute();
  await db.schema.createIndex('checkout_sessions_open_expires').on('checkout_sessions').column('expires_at').where(sql.ref('status'), '=', 'open').execute();
  await db.schema.createIndex('cash_slips_active_expiry').on('cash_slips').column('expires_at').where(sql.ref('status'), '=', 'active').execute();
  await db.schema.createIndex('cash_deposits_session').on('cash_deposits').column('session_id').execute();
  await db.schema.createIndex('cash_deposits_created').on('cash_deposits').columns(['created_at', 'id']).execute();
  await db.schema.createIndex('cash_deposits_approved_amount').on('cash_deposits').column('amount_minor').where(sql.ref('status'), '=', 'approved').execute();
  await db.schema.createIndex('payment_attempts_succeeded_amount').on('payment_attempts').column('amount_charged_minor').where(sql.ref('status'), '=', 'succeeded').execute();
  await db.schema.createIndex('webhook_delivery_attempts_event').on('webhook_delivery_attempts').columns(['event_id', 'seq']).execute();
  await db.schema.createIndex('checkout_sessions_success_finalized').on('checkout_sessions').columns(['merchant_id', 'finalized_at', 'id']).where(sql.ref('status'), '=', 'success').execute();
  await db.schema.createIndex('payment_attempts_pending_updated').on('payment_attempts').column('updated_at').where(sql.ref('status'), '=', 'pending').execute();
}
