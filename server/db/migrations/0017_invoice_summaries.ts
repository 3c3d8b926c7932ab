import { sql, type Kysely } from 'kysely';
import { ddl } from './ddl';

// Frozen. The back-office invoice list aggregated every invoice ref of the merchant
// on each call (a UNION of lines and sessions with correlated sums per ref: it gave up after
// 60 s at 1,000,000 sessions) and an invoice's detail summed all its sessions (2.25 s for
// 100,000). `invoice_summaries` holds one row per (merchant_id, invoice_ref) with what both
// show, kept by the transactions that write lines and sessions (server/domain/invoice-summary.ts)
// and backfilled here from the existing rows. Both modes are counted together, as the list did.
// - line_*: count, sum, lowest currency, MAX(remitted_at) once every line is remitted, MAX(updated_at);
// - session_count, success_count, paid_minor (success amounts), first_success_at (MIN finalized_at
//   of the successes), sessions_updated_at (MAX updated_at) and the latest session (created_at, id);
// - remitted / remitted_at: the lines' when it has lines, else the first success;
// - updated_at: the later of the lines' and the sessions' updated_at (the list's default sort).
export async function up(db: Kysely<unknown>): Promise<void> {
  const { pg, int, table } = ddl(db);
  await table('invoice_summaries')
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('invoice_ref', 'text', (c) => c.notNull())
    .addColumn('line_currency', 'text')
    .addColumn('line_count', int, (c) => c.notNull())
    .addColumn('billed_minor', int, (c) => c.notNull())
    .addColumn('lines_remitted_at', 'text')
    .addColumn('lines_updated_at', 'text')
    .addColumn('session_count', int, (c) => c.notNull())
    .addColumn('success_count', int, (c) => c.notNull())
    .addColumn('paid_minor', int, (c) => c.notNull())
    .addColumn('first_success_at', 'text')
    .addColumn('sessions_updated_at', 'text')
    .addColumn('latest_session_id', 'text')
    .addColumn('latest_session_created_at', 'text')
    .addColumn('latest_session_status', 'text')
    .addColumn('latest_session_currency', 'text')
    .addColumn('remitted', int, (c) => c.notNull())
    .addColumn('remitted_at', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('invoice_summaries_pk', ['merchant_id', 'invoice_ref'])
    .execute();
  // The list's sorts (each read forwards or backwards, ties by invoice_ref the same way), its
  // remitted filter in the default order, and the exceptions' candidates (several payments, or
  // one that differs from the billed total).
  await db.schema.createIndex('invoice_summaries_updated').on('invoice_summaries').columns(['merchant_id', 'updated_at', 'invoice_ref']).execute();
  await db.schema.createIndex('invoice_summaries_remitted_updated').on('invoice_summaries').columns(['merchant_id', 'remitted', 'updated_at', 'invoice_ref']).execute();
  await db.schema.createIndex('invoice_summaries_billed').on('invoice_summaries').columns(['merchant_id', 'billed_minor', 'invoice_ref']).execute();
  await db.schema.createIndex('invoice_summaries_line_count').on('invoice_summaries').columns(['merchant_id', 'line_count', 'invoice_ref']).execute();
  await db.schema.createIndex('invoice_summaries_paid_again').on('invoice_summaries').columns(['merchant_id', 'invoice_ref']).where(sql.ref('success_count'), '>', 1).execute();
  await db.schema
    .createIndex('invoice_summaries_paid_differs')
    .on('invoice_summaries')
    .columns(['merchant_id', 'invoice_ref'])
    .where((eb) => eb.and([eb(sql.ref('success_count'), '=', 1), eb(sql.ref('line_count'), '>', 0), eb(sql.ref('paid_minor'), '<>', sql.ref('billed_minor'))]))
    .execute();
  await sql.raw(backfill(pg)).execute(db);
}

/** Every row from the base tables (the same statement as `invoices:rebuild`, frozen here). */
function backfill(pg: boolean): string {
  const greatest = pg ? 'GREATEST' : 'MAX';
  return `
    INSERT INTO invoice_summaries (merchant_id, invoice_ref, line_currency, line_count, billed_minor, lines_remitted_at, lines_updated_at,
      session_count, success_count, paid_minor, first_success_at, sessions_updated_at,
      latest_session_id, latest_session_created_at, latest_session_status, latest_session_currency, remitted, remitted_at, updated_at)
    WITH l AS (
      SELECT merchant_id, invoice_ref, COUNT(*) AS n, SUM(amount_minor) AS billed, MIN(currency) AS currency,
        CASE WHEN MIN(remitted) = 1 THEN MAX(remitted_at) END AS remitted_at, MAX(updated_at) AS updated_at
      FROM invoice_lines GROUP BY merchant_id, invoice_ref
    ), s AS (
      SELECT merchant_id, invoice_ref, COUNT(*) AS n,
        SUM(CASE WHEN status = 'success' THEN 1 ELSE 0 END) AS successes,
        SUM(CASE WHEN status = 'success' THEN amount_minor ELSE 0 END) AS paid,
        MIN(CASE WHEN status = 'success' THEN COALESCE(finalized_at, '') END) AS first_success_at,
        MAX(updated_at) AS updated_at
      FROM checkout_sessions GROUP BY merchant_id, invoice_ref
    ), latest AS (
      SELECT merchant_id, invoice_ref, id, created_at, status, currency FROM (
        SELECT merchant_id, invoice_ref, id, created_at, status, currency,
          ROW_NUMBER() OVER (PARTITION BY merchant_id, invoice_ref ORDER BY created_at DESC, id DESC) AS rn
        FROM checkout_sessions
      ) ranked WHERE rn = 1
    ), refs AS (
      SELECT merchant_id, invoice_ref FROM l UNION SELECT merchant_id, invoice_ref FROM s
    )
    SELECT r.merchant_id, r.invoice_ref, l.currency, COALESCE(l.n, 0), COALESCE(l.billed, 0), l.remitted_at, l.updated_at,
      COALESCE(s.n, 0), COALESCE(s.successes, 0), COALESCE(s.paid, 0), s.first_success_at, s.updated_at,
      latest.id, latest.created_at, latest.status, latest.currency,
      CASE WHEN (CASE WHEN l.n IS NOT NULL THEN l.remitted_at ELSE s.first_success_at END) IS NULL THEN 0 ELSE 1 END,
      CASE WHEN l.n IS NOT NULL THEN l.remitted_at ELSE s.first_success_at END,
      ${greatest}(COALESCE(l.updated_at, ''), COALESCE(s.updated_at, ''))
    FROM refs r
    LEFT JOIN l ON l.merchant_id = r.merchant_id AND l.invoice_ref = r.invoice_ref
    LEFT JOIN s ON s.merchant_id = r.merchant_id AND s.invoice_ref = r.invoice_ref
    LEFT JOIN latest ON latest.merchant_id = r.merchant_id AND latest.invoice_ref = r.invoice_ref`;
}
