import { sql, type Kysely } from 'kysely';
import { ddl } from './ddl';

// Frozen. The finance overview's totals: one row per (merchant, currency, UTC day, mode, rail,
// status) with the sessions counted and, for successes, what they collected. `status` is
// 'created' (sessions created that day, rail '') or the terminal status reached that day
// (success with the rail that paid, failed and expired with rail ''). Kept by the invoice
// summary fold (server/domain/day-totals.ts) from the deltas the session writers append: a
// created delta, and a moved delta now naming the status the session moved to (the new
// `status` column; a terminal status is reached once per session). Backfilled here from the
// base tables with the same statement `invoices:rebuild` runs.
export async function up(db: Kysely<unknown>): Promise<void> {
  const { int, table } = ddl(db);
  await db.schema.alterTable('invoice_summary_deltas').addColumn('status', 'text').execute();
  await table('finance_day_totals')
    .addColumn('merchant_id', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('rail', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('sessions', int, (c) => c.notNull())
    .addColumn('base_minor', int, (c) => c.notNull())
    .addColumn('collected_minor', int, (c) => c.notNull())
    .addColumn('payer_fee_minor', int, (c) => c.notNull())
    .addColumn('merchant_fee_minor', int, (c) => c.notNull())
    .addPrimaryKeyConstraint('finance_day_totals_pk', ['merchant_id', 'currency', 'day', 'mode', 'rail', 'status'])
    .execute();
  await sql.raw(backfill()).execute(db);
}

function backfill(): string {
  return `
    INSERT INTO finance_day_totals (merchant_id, currency, day, mode, rail, status, sessions, base_minor, collected_minor, payer_fee_minor, merchant_fee_minor)
    SELECT s.merchant_id, s.currency, substr(s.created_at, 1, 10), i.mode, '', 'created', COUNT(*), 0, 0, 0, 0
    FROM checkout_sessions s JOIN integrations i ON i.id = s.integration_id
    GROUP BY s.merchant_id, s.currency, substr(s.created_at, 1, 10), i.mode
    UNION ALL
    SELECT merchant_id, currency, day, mode, rail, status, COUNT(*), SUM(base), SUM(collected), SUM(payer_fee), SUM(fee - payer_fee)
    FROM (
      SELECT s.merchant_id, s.currency, substr(COALESCE(s.finalized_at, s.updated_at), 1, 10) AS day, i.mode,
        CASE WHEN s.status = 'success' THEN COALESCE(s.paid_rail, '') ELSE '' END AS rail, s.status,
        CASE WHEN s.status = 'success' THEN s.amount_minor ELSE 0 END AS base,
        CASE WHEN s.status <> 'success' THEN 0 WHEN d.id IS NOT NULL THEN d.amount_minor ELSE COALESCE(a.amount_charged_minor, s.amount_minor) END AS collected,
        CASE WHEN s.status <> 'success' THEN 0 WHEN d.id IS NOT NULL THEN sl.fee_minor ELSE COALESCE(a.fee_minor, 0) END AS fee,
        CASE WHEN s.status <> 'success' THEN 0 WHEN d.id IS NOT NULL THEN d.amount_minor - s.amount_minor ELSE COALESCE(a.amount_charged_minor, s.amount_minor) - s.amount_minor END AS payer_fee
      FROM checkout_sessions s
      JOIN integrations i ON i.id = s.integration_id
      LEFT JOIN payment_attempts a ON s.status = 'success' AND a.session_id = s.id AND a.status = 'succeeded'
      LEFT JOIN cash_deposits d ON s.status = 'success' AND d.session_id = s.id AND d.status = 'approved'
      LEFT JOIN cash_slips sl ON sl.id = d.slip_id
      WHERE s.status IN ('success', 'failed', 'expired')
    ) t
    GROUP BY merchant_id, currency, day, mode, rail, status`;
}
