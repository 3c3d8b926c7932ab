import { sql, type Expression, type Kysely, type QueryCreator, type SqlBool, type Transaction } from 'kysely';
import { dialectOf, type Dialect } from '../db/dialect';
import { precompiled } from '../db/precompiled';
import { dayTotalsRebuildSql } from './day-totals';
import type { CheckoutSessionsTable, Database } from '../db/schema';

type Q = Transaction<Database> | Kysely<Database>;

/**
 * `invoice_summaries` (migration 0017): one row per (merchant_id, invoice_ref), both modes
 * together, with what the back office's invoice list and detail show. Its writers do not touch
 * it: each appends, in its own transaction, one row to `invoice_summary_deltas` (migration 0021)
 * saying what it adds, and jobs/invoice-summary-fold.ts folds those into the summaries (the
 * sweeper's job; the invoice reads and `invoices:rebuild` catch up first). Three hooks:
 *
 * - `summaryOnSessionCreated` (domain/session-transitions.ts `openInvoiceSession`): one more session,
 *   perhaps the latest.
 * - `summaryOnSessionMoved` (`applyTransition`, every status change whatever its cause:
 *   payment, deposit approval, reconcile, sweeper expiry…): perhaps the latest's status, and on
 *   success the paid sum, success count and first success.
 * - `summaryOnLinesChanged` (invoice-line ingest, and a reallocation that remitted lines):
 *   the fold recomputes the line part from the ref's lines.
 *
 * Each is one small INSERT into a table with no secondary index (the upsert it
 * replaces cost ~150 µs of a session create on SQLite, and on PostgreSQL concurrent creates on
 * one ref conflicted on the summary row). `npm run admin -- invoices:rebuild` recomputes every
 * row from the base tables (after a restore, or a manual UPDATE of sessions or lines).
 */

type Delta = { merchantId: string; invoiceRef: string; sessions: number; successes: number; paid: number; firstSuccessAt: string | null; at: string | null; id: string | null; createdAt: string | null; lines: number; status?: string | null };
/** The INSERT of one delta (also a part of session-transitions.ts's one-statement create on PostgreSQL). */
export const deltaInsert = (db: QueryCreator<Database>, p: Delta) =>
  db.insertInto('invoice_summary_deltas').values({
    merchant_id: p.merchantId,
    invoice_ref: p.invoiceRef,
    sessions: p.sessions,
    successes: p.successes,
    paid_minor: p.paid,
    first_success_at: p.firstSuccessAt,
    sessions_updated_at: p.at,
    session_id: p.id,
    session_created_at: p.createdAt,
    lines: p.lines,
    status: p.status ?? null,
  });
const insertDelta = precompiled((db, p: Delta) => deltaInsert(db, p));
/** deltaInsert as an INSERT … SELECT written only when `gate` holds (PostgreSQL's one-statement create; integer columns cast). */
export const gatedDeltaInsert = (qc: QueryCreator<Database>, p: Delta, gate: Expression<SqlBool>) =>
  qc
    .insertInto('invoice_summary_deltas')
    .columns(['merchant_id', 'invoice_ref', 'sessions', 'successes', 'paid_minor', 'first_success_at', 'sessions_updated_at', 'session_id', 'session_created_at', 'lines', 'status'])
    .expression(
      qc
        .selectNoFrom((eb) => [
          eb.val(p.merchantId).as('merchant_id'),
          eb.val(p.invoiceRef).as('invoice_ref'),
          eb.cast(eb.val(p.sessions), 'bigint').as('sessions'),
          eb.cast(eb.val(p.successes), 'bigint').as('successes'),
          eb.cast(eb.val(p.paid), 'bigint').as('paid_minor'),
          eb.val(p.firstSuccessAt).as('first_success_at'),
          eb.val(p.at).as('sessions_updated_at'),
          eb.val(p.id).as('session_id'),
          eb.val(p.createdAt).as('session_created_at'),
          eb.cast(eb.val(p.lines), 'bigint').as('lines'),
          eb.val(p.status ?? null).as('status'),
        ])
        .where(gate),
    );

export const sessionDelta = (s: CheckoutSessionsTable, created: boolean, paid: boolean): Delta => ({
  merchantId: s.merchant_id,
  invoiceRef: s.invoice_ref,
  sessions: created ? 1 : 0,
  successes: paid ? 1 : 0,
  paid: paid ? s.amount_minor : 0,
  firstSuccessAt: paid ? (s.finalized_at ?? '') : null,
  at: s.updated_at,
  id: s.id,
  createdAt: s.created_at,
  lines: 0,
});

export async function summaryOnSessionCreated(trx: Q, s: CheckoutSessionsTable): Promise<void> {
  await insertDelta(trx, sessionDelta(s, true, false));
}

/** After `applyTransition` moved session `s` (the updated row) to `s.status`. */
export async function summaryOnSessionMoved(trx: Q, s: CheckoutSessionsTable): Promise<void> {
  await insertDelta(trx, { ...sessionDelta(s, false, s.status === 'success'), status: s.status });
}

/** After the ref's lines changed (ingest, or lines newly remitted): the fold reads the line part from the lines themselves. */
export async function summaryOnLinesChanged(trx: Q, merchantId: string, invoiceRef: string): Promise<void> {
  await insertDelta(trx, { merchantId, invoiceRef, sessions: 0, successes: 0, paid: 0, firstSuccessAt: null, at: null, id: null, createdAt: null, lines: 1 });
}

/**
 * Every row again from the base tables, in one transaction (`invoices:rebuild`); returns how
 * many rows. The pending deltas are dropped with the old rows: the base tables already hold
 * their writes. On PostgreSQL the delta table is locked first (EXCLUSIVE: it waits for the
 * writers that appended a delta and holds back new ones until the commit), so the deltas
 * dropped are exactly those whose writes the INSERT … SELECT reads.
 */
export async function rebuildInvoiceSummaries(db: Kysely<Database>): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const dialect = dialectOf(trx);
    await dialect.lockTable(trx, 'invoice_summary_deltas');
    await trx.deleteFrom('invoice_summary_deltas').execute();
    await trx.deleteFrom('invoice_summaries').execute();
    await sql.raw(invoiceSummaryRebuildSql(dialect.greatest)).execute(trx);
    await trx.deleteFrom('finance_day_totals').execute();
    await sql.raw(dayTotalsRebuildSql()).execute(trx);
    const row = await trx.selectFrom('invoice_summaries').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return Number(row.n);
  });
}

/** The INSERT … SELECT that fills the table from invoice_lines and checkout_sessions (migration 0017 has a frozen copy; bench/volume-seed.ts runs it after seeding). */
export function invoiceSummaryRebuildSql(greatest: Dialect['greatest']): string {
  return `
    INSERT INTO invoice_summaries (merchant_id, invoice_ref, line_currency, line_count, billed_minor, lines_remitted_at, lines_updated_at,
      session_count, success_count, paid_minor, first_success_at, sessions_updated_at,
      latest_session_id, latest_session_created_at, latest_session_status, latest_session_currency, remitted, remitted_at, updated_at,
      test_line_count, test_billed_minor, test_success_count, test_paid_minor)
    WITH l AS (
      SELECT merchant_id, invoice_ref, COUNT(*) AS n, SUM(amount_minor) AS billed, MIN(currency) AS currency,
        CASE WHEN MIN(remitted) = 1 THEN MAX(remitted_at) END AS remitted_at, MAX(updated_at) AS updated_at,
        SUM(CASE WHEN mode = 'test' THEN 1 ELSE 0 END) AS test_n, SUM(CASE WHEN mode = 'test' THEN amount_minor ELSE 0 END) AS test_billed
      FROM invoice_lines GROUP BY merchant_id, invoice_ref
    ), s AS (
      SELECT merchant_id, invoice_ref, COUNT(*) AS n,
        SUM(CASE WHEN status = 'success' THEN 1 ELSE 0 END) AS successes,
        SUM(CASE WHEN status = 'success' THEN amount_minor ELSE 0 END) AS paid,
        MIN(CASE WHEN status = 'success' THEN COALESCE(finalized_at, '') END) AS first_success_at,
        MAX(updated_at) AS updated_at,
        SUM(CASE WHEN status = 'success' AND substr(id, 1, 8) = 'cs_test_' THEN 1 ELSE 0 END) AS test_successes,
        SUM(CASE WHEN status = 'success' AND substr(id, 1, 8) = 'cs_test_' THEN amount_minor ELSE 0 END) AS test_paid
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
      ${greatest}(COALESCE(l.updated_at, ''), COALESCE(s.updated_at, '')),
      COALESCE(l.test_n, 0), COALESCE(l.test_billed, 0), COALESCE(s.test_successes, 0), COALESCE(s.test_paid, 0)
    FROM refs r
    LEFT JOIN l ON l.merchant_id = r.merchant_id AND l.invoice_ref = r.invoice_ref
    LEFT JOIN s ON s.merchant_id = r.merchant_id AND s.invoice_ref = r.invoice_ref
    LEFT JOIN latest ON latest.merchant_id = r.merchant_id AND latest.invoice_ref = r.invoice_ref`;
}
