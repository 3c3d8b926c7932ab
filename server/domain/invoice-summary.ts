import { sql, type Kysely, type Transaction } from 'kysely';
import { isPostgres } from '../db/engine';
import { precompiled } from '../db/precompiled';
import type { CheckoutSessionsTable, Database } from '../db/schema';

type Q = Transaction<Database> | Kysely<Database>;

/**
 * `invoice_summaries` (migration 0017): one row per (merchant_id, invoice_ref), both modes
 * together, with what the back office's invoice list and detail show. It is written in the
 * same transaction as its inputs, by exactly three hooks:
 *
 * - `summaryOnSessionCreated` (domain/session-transitions.ts `openSession`): one more session,
 *   perhaps the latest; creates the row for a new ref.
 * - `summaryOnSessionMoved` (`applyTransition`, every status change whatever its cause:
 *   payment, deposit approval, reconcile, sweeper expiry…): the latest status, and on success
 *   the paid sum, success count and first success.
 * - `summaryOnLinesChanged` (invoice-line ingest, and a reallocation that remitted lines):
 *   the line part recomputed from the ref's lines (a few rows, indexed).
 *
 * Each is one statement. `updated_at` only moves forward (the later of the lines' and the
 * sessions' latest change). `npm run admin -- invoices:rebuild` recomputes every row from the
 * base tables (after a restore, or a manual UPDATE of sessions or lines).
 */

const greatestOf = (db: Q) => (isPostgres(db) ? 'GREATEST' : 'MAX');

/** The new session sorts after the row's latest one by (created_at, id) (SET expressions read the row's old values). */
const newer = sql`(t.latest_session_created_at IS NULL OR excluded.latest_session_created_at > t.latest_session_created_at
  OR (excluded.latest_session_created_at = t.latest_session_created_at AND excluded.latest_session_id > t.latest_session_id))`;
const upsertCreated = precompiled((db, p: { merchantId: string; invoiceRef: string; id: string; createdAt: string; updatedAt: string; status: string; currency: string }) => ({
  compile: () =>
    sql`INSERT INTO invoice_summaries AS t (merchant_id, invoice_ref, line_currency, line_count, billed_minor, lines_remitted_at, lines_updated_at,
          session_count, success_count, paid_minor, first_success_at, sessions_updated_at,
          latest_session_id, latest_session_created_at, latest_session_status, latest_session_currency, remitted, remitted_at, updated_at)
        VALUES (${p.merchantId}, ${p.invoiceRef}, NULL, 0, 0, NULL, NULL, 1, 0, 0, NULL, ${p.updatedAt}, ${p.id}, ${p.createdAt}, ${p.status}, ${p.currency}, 0, NULL, ${p.updatedAt})
        ON CONFLICT (merchant_id, invoice_ref) DO UPDATE SET
          session_count = t.session_count + 1,
          sessions_updated_at = CASE WHEN t.sessions_updated_at IS NULL OR t.sessions_updated_at < excluded.sessions_updated_at THEN excluded.sessions_updated_at ELSE t.sessions_updated_at END,
          updated_at = CASE WHEN t.updated_at < excluded.updated_at THEN excluded.updated_at ELSE t.updated_at END,
          latest_session_id = CASE WHEN ${newer} THEN excluded.latest_session_id ELSE t.latest_session_id END,
          latest_session_status = CASE WHEN ${newer} THEN excluded.latest_session_status ELSE t.latest_session_status END,
          latest_session_currency = CASE WHEN ${newer} THEN excluded.latest_session_currency ELSE t.latest_session_currency END,
          latest_session_created_at = CASE WHEN ${newer} THEN excluded.latest_session_created_at ELSE t.latest_session_created_at END`.compile(db),
}));

export async function summaryOnSessionCreated(trx: Q, s: CheckoutSessionsTable): Promise<void> {
  await upsertCreated(trx, { merchantId: s.merchant_id, invoiceRef: s.invoice_ref, id: s.id, createdAt: s.created_at, updatedAt: s.updated_at, status: s.status, currency: s.currency });
}

const firstSuccess = (at: unknown) => sql`CASE WHEN first_success_at IS NULL OR first_success_at > ${at} THEN ${at} ELSE first_success_at END`;
const moved = precompiled((db, p: { merchantId: string; invoiceRef: string; id: string; at: string; status: string }) => ({
  compile: () =>
    sql`UPDATE invoice_summaries SET
          sessions_updated_at = CASE WHEN sessions_updated_at IS NULL OR sessions_updated_at < ${p.at} THEN ${p.at} ELSE sessions_updated_at END,
          updated_at = CASE WHEN updated_at < ${p.at} THEN ${p.at} ELSE updated_at END,
          latest_session_status = CASE WHEN latest_session_id = ${p.id} THEN ${p.status} ELSE latest_session_status END
        WHERE merchant_id = ${p.merchantId} AND invoice_ref = ${p.invoiceRef}`.compile(db),
}));
const paid = precompiled((db, p: { merchantId: string; invoiceRef: string; id: string; at: string; finalizedAt: string; amount: number }) => ({
  compile: () =>
    sql`UPDATE invoice_summaries SET
          sessions_updated_at = CASE WHEN sessions_updated_at IS NULL OR sessions_updated_at < ${p.at} THEN ${p.at} ELSE sessions_updated_at END,
          updated_at = CASE WHEN updated_at < ${p.at} THEN ${p.at} ELSE updated_at END,
          latest_session_status = CASE WHEN latest_session_id = ${p.id} THEN 'success' ELSE latest_session_status END,
          success_count = success_count + 1,
          paid_minor = paid_minor + ${p.amount},
          first_success_at = ${firstSuccess(p.finalizedAt)},
          remitted = CASE WHEN line_count > 0 THEN remitted ELSE 1 END,
          remitted_at = CASE WHEN line_count > 0 THEN remitted_at ELSE ${firstSuccess(p.finalizedAt)} END
        WHERE merchant_id = ${p.merchantId} AND invoice_ref = ${p.invoiceRef}`.compile(db),
}));

/** After `applyTransition` moved session `s` (the updated row) to `s.status`. */
export async function summaryOnSessionMoved(trx: Q, s: CheckoutSessionsTable): Promise<void> {
  const key = { merchantId: s.merchant_id, invoiceRef: s.invoice_ref, id: s.id, at: s.updated_at };
  if (s.status === 'success') await paid(trx, { ...key, finalizedAt: s.finalized_at ?? '', amount: s.amount_minor });
  else await moved(trx, { ...key, status: s.status });
}

/** After the ref's lines changed (ingest, or lines newly remitted): the line part from the lines themselves. */
export async function summaryOnLinesChanged(trx: Q, merchantId: string, invoiceRef: string): Promise<void> {
  const agg = await trx
    .selectFrom('invoice_lines')
    .select((eb) => [
      eb.fn.countAll<number>().as('n'),
      eb.fn.sum<number>('amount_minor').as('billed'),
      eb.fn.min('currency').as('currency'),
      eb.fn.min('remitted').as('all_remitted'),
      eb.fn.max('remitted_at').as('remitted_at'),
      eb.fn.max('updated_at').as('updated_at'),
    ])
    .where('merchant_id', '=', merchantId)
    .where('invoice_ref', '=', invoiceRef)
    .executeTakeFirstOrThrow();
  const n = Number(agg.n);
  if (n === 0) return; // lines are never deleted: no lines now means none ever, nothing to show
  const linesRemittedAt = Number(agg.all_remitted) === 1 ? agg.remitted_at : null;
  const updatedAt = agg.updated_at ?? '';
  await sql`INSERT INTO invoice_summaries AS t (merchant_id, invoice_ref, line_currency, line_count, billed_minor, lines_remitted_at, lines_updated_at,
      session_count, success_count, paid_minor, first_success_at, sessions_updated_at,
      latest_session_id, latest_session_created_at, latest_session_status, latest_session_currency, remitted, remitted_at, updated_at)
    VALUES (${merchantId}, ${invoiceRef}, ${agg.currency}, ${n}, ${Number(agg.billed)}, ${linesRemittedAt}, ${updatedAt},
      0, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL, ${linesRemittedAt === null ? 0 : 1}, ${linesRemittedAt}, ${updatedAt})
    ON CONFLICT (merchant_id, invoice_ref) DO UPDATE SET
      line_currency = excluded.line_currency,
      line_count = excluded.line_count,
      billed_minor = excluded.billed_minor,
      lines_remitted_at = excluded.lines_remitted_at,
      lines_updated_at = excluded.lines_updated_at,
      remitted = excluded.remitted,
      remitted_at = excluded.remitted_at,
      updated_at = ${sql.raw(greatestOf(trx))}(excluded.lines_updated_at, COALESCE(t.sessions_updated_at, ''))`.execute(trx);
}

/** Every row again from the base tables, in one transaction (`invoices:rebuild`); returns how many rows. */
export async function rebuildInvoiceSummaries(db: Kysely<Database>): Promise<number> {
  return db.transaction().execute(async (trx) => {
    await trx.deleteFrom('invoice_summaries').execute();
    await sql.raw(invoiceSummaryRebuildSql(isPostgres(trx))).execute(trx);
    const row = await trx.selectFrom('invoice_summaries').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return Number(row.n);
  });
}

/** The INSERT … SELECT that fills the table from invoice_lines and checkout_sessions (migration 0017 has a frozen copy; bench/volume-seed.ts runs it after seeding). */
export function invoiceSummaryRebuildSql(pg: boolean): string {
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
      ${pg ? 'GREATEST' : 'MAX'}(COALESCE(l.updated_at, ''), COALESCE(s.updated_at, ''))
    FROM refs r
    LEFT JOIN l ON l.merchant_id = r.merchant_id AND l.invoice_ref = r.invoice_ref
    LEFT JOIN s ON s.merchant_id = r.merchant_id AND s.invoice_ref = r.invoice_ref
    LEFT JOIN latest ON latest.merchant_id = r.merchant_id AND latest.invoice_ref = r.invoice_ref`;
}
