import { sql, type Kysely } from 'kysely';

// Frozen. Issue 18: every periodic query finds its rows through an index.
// - The sweeper asks for `status = 'open' AND expires_at <= now`; the index of 0001 is
//   partial on `status IN ('open','pending')`, which neither engine matches to `= 'open'`,
//   so the sweep scanned the whole table every second. Replaced by one on open sessions
//   only (pending ones are never expired by the sweeper: their attempt decides first).
// - Slips: the sweep's `status = 'active' AND expires_at <= now`.
// - Provider reconciliation: pending attempts by `updated_at`.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('checkout_sessions_open_expiry').execute();
  await db.schema.createIndex('checkout_sessions_open_expires').on('checkout_sessions').column('expires_at').where(sql.ref('status'), '=', 'open').execute();
  await db.schema.createIndex('cash_slips_active_expiry').on('cash_slips').column('expires_at').where(sql.ref('status'), '=', 'active').execute();
  await db.schema.createIndex('payment_attempts_pending_updated').on('payment_attempts').column('updated_at').where(sql.ref('status'), '=', 'pending').execute();
}
