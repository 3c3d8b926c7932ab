import { sql, type Transaction } from 'kysely';
import type { Db } from '../db/database';
import { dialectOf } from '../db/dialect';
import type { Database, InvoiceSummariesTable, InvoiceSummaryDeltasTable } from '../db/schema';
import { yieldToLoop } from './batches';
import { foldDayTotals } from '../domain/day-totals';

type Trx = Transaction<Database>;

/** Deltas read and deleted per transaction (a few refs' upserts: a few ms at most). */
export const FOLD_BATCH = 200;
/** Wall time the sweeper's job may spend folding per tick before leaving the rest to the next (the event loop runs between batches). */
const FOLD_BUDGET_MS = 100;
/** What an invoice read folds at most before answering (read-your-writes unless the backlog is larger). */
const CATCH_UP_MAX = 1_000;

/**
 * Folds `invoice_summary_deltas` (migration 0021, appended by the writers in
 * domain/invoice-summary.ts) into `invoice_summaries`. A batch is one transaction: the oldest
 * FOLD_BATCH deltas are deleted (RETURNING them), aggregated per (merchant_id, invoice_ref), and
 * each ref's row is read, updated and written back once. Every column folds without regard to
 * order: counts and sums add up; first_success_at is a MIN; sessions_updated_at a MAX; the
 * latest session the greatest (created_at, id) seen, its status and currency read again from
 * checkout_sessions by id whenever a session of the ref moved; the line part recomputed from
 * the ref's lines (a few rows, indexed) when they changed; remitted / remitted_at / updated_at
 * derived from the rest as the rebuild derives them. A crash before the commit leaves the
 * deltas in place; one after leaves them folded — nothing is lost or applied twice.
 *
 * On PostgreSQL folds are serialised by a transaction advisory lock (the sweeper's leader and
 * an invoice read catching up may fold at once); writers never take it, and never read the
 * summaries or the deltas, so concurrent writers on one ref no longer meet on a row.
 */
export async function foldInvoiceSummaries(db: Db, budgetMs = FOLD_BUDGET_MS, maxDeltas = Number.POSITIVE_INFINITY): Promise<number> {
  const deadline = performance.now() + budgetMs;
  // One indexed read spares the common case (nothing pending) a write transaction; after that,
  // a batch shorter than its limit says the log is empty (or another fold took the rest).
  if (!(await pendingDelta(db))) return 0;
  let folded = 0;
  while (folded < maxDeltas) {
    // Each batch is its own slice of the event loop: on SQLite the batches would otherwise run
    // back to back without yielding (2-4 ms each under load; a tick folded up to 5 of them).
    if (folded > 0) await yieldToLoop();
    const limit = Math.min(FOLD_BATCH, maxDeltas - folded);
    const n = await foldBatch(db, limit);
    folded += n;
    if (n < limit || performance.now() >= deadline) break;
  }
  return folded;
}

/** Before an invoice read: fold what is pending, up to CATCH_UP_MAX deltas (one indexed read when nothing is). */
export async function catchUpInvoiceSummaries(db: Db): Promise<void> {
  await foldInvoiceSummaries(db, Number.POSITIVE_INFINITY, CATCH_UP_MAX);
}

/** Everything pending (tests, and the volume seed's check). */
export async function flushInvoiceSummaries(db: Db): Promise<number> {
  return foldInvoiceSummaries(db, Number.POSITIVE_INFINITY);
}

async function pendingDelta(db: Db): Promise<boolean> {
  const row = await db.selectFrom('invoice_summary_deltas').select('seq').orderBy('invoice_summary_deltas.seq').limit(1).executeTakeFirst();
  return row !== undefined;
}

type Acc = {
  merchantId: string;
  invoiceRef: string;
  sessions: number;
  successes: number;
  paid: number;
  /** The test-mode part of successes and paid (a `cs_test_…` session's delta). */
  testSuccesses: number;
  testPaid: number;
  firstSuccessAt: string | null;
  sessionsUpdatedAt: string | null;
  latest: { id: string; createdAt: string } | null;
  lines: boolean;
};

const maxOf = (a: string | null, b: string | null) => (b !== null && (a === null || b > a) ? b : a);
const minOf = (a: string | null, b: string | null) => (b !== null && (a === null || b < a) ? b : a);
/** (created_at, id) of b sorts after a's (code-point order, as the fold has always compared them in JS). */
const later = (a: { id: string; createdAt: string } | null, b: { id: string; createdAt: string }) =>
  a === null || b.createdAt > a.createdAt || (b.createdAt === a.createdAt && b.id > a.id);

/** One batch in one transaction; returns how many deltas it folded. */
export async function foldBatch(db: Db, limit = FOLD_BATCH): Promise<number> {
  // No two folds overlap, and each statement reads what is committed (server/db/dialect
  // `exclusiveJob`), never aborting a writer over a row both touched. Whatever the fold reads and
  // a writer then commits comes with a delta of its own, folded next.
  return dialectOf(db).exclusiveJob(db, 'invoice-summary-fold', async (trx) => {
    const deltas = await trx
      .deleteFrom('invoice_summary_deltas')
      .where('seq', 'in', (eb) => eb.selectFrom('invoice_summary_deltas').select('seq').orderBy('invoice_summary_deltas.seq').limit(limit))
      .returningAll()
      .execute();
    const refs = new Map<string, Acc>();
    for (const d of deltas) accumulate(refs, d);
    // One order for every fold, so two transactions never wait on each other's rows in turn.
    const ordered = [...refs.values()].sort((a, b) => (a.merchantId === b.merchantId ? (a.invoiceRef < b.invoiceRef ? -1 : 1) : a.merchantId < b.merchantId ? -1 : 1));
    if (ordered.length > 0) await foldRefs(trx, ordered);
    await foldDayTotals(trx, deltas);
    return deltas.length;
  });
}

function accumulate(refs: Map<string, Acc>, d: Omit<InvoiceSummaryDeltasTable, 'seq'>): void {
  const key = `${d.merchant_id}\u0000${d.invoice_ref}`;
  let acc = refs.get(key);
  if (!acc) {
    acc = { merchantId: d.merchant_id, invoiceRef: d.invoice_ref, sessions: 0, successes: 0, paid: 0, testSuccesses: 0, testPaid: 0, firstSuccessAt: null, sessionsUpdatedAt: null, latest: null, lines: false };
    refs.set(key, acc);
  }
  acc.sessions += Number(d.sessions);
  acc.successes += Number(d.successes);
  acc.paid += Number(d.paid_minor);
  if (d.session_id?.startsWith('cs_test_')) {
    acc.testSuccesses += Number(d.successes);
    acc.testPaid += Number(d.paid_minor);
  }
  acc.firstSuccessAt = minOf(acc.firstSuccessAt, d.first_success_at);
  acc.sessionsUpdatedAt = maxOf(acc.sessionsUpdatedAt, d.sessions_updated_at);
  if (d.session_id !== null && d.session_created_at !== null) {
    const candidate = { id: d.session_id, createdAt: d.session_created_at };
    if (later(acc.latest, candidate)) acc.latest = candidate;
  }
  if (Number(d.lines) === 1) acc.lines = true;
}

const COLUMNS = [
  'line_currency', 'line_count', 'billed_minor', 'lines_remitted_at', 'lines_updated_at', 'session_count', 'success_count', 'paid_minor', 'first_success_at',
  'sessions_updated_at', 'latest_session_id', 'latest_session_created_at', 'latest_session_status', 'latest_session_currency', 'remitted', 'remitted_at', 'updated_at',
  'test_line_count', 'test_billed_minor', 'test_success_count', 'test_paid_minor',
] as const;

const empty = (merchantId: string, invoiceRef: string): InvoiceSummariesTable => ({
  merchant_id: merchantId, invoice_ref: invoiceRef, line_currency: null, line_count: 0, billed_minor: 0, lines_remitted_at: null, lines_updated_at: null,
  session_count: 0, success_count: 0, paid_minor: 0, first_success_at: null, sessions_updated_at: null,
  latest_session_id: null, latest_session_created_at: null, latest_session_status: null, latest_session_currency: null, remitted: 0, remitted_at: null, updated_at: '',
  test_line_count: 0, test_billed_minor: 0, test_success_count: 0, test_paid_minor: 0,
});

/** Rows per multi-row upsert (19 parameters each: far below either engine's limit). */
const UPSERT_CHUNK = 100;

/**
 * The batch's refs (sorted) folded with a few set statements, not a few per ref: their stored
 * rows by primary key (one IN list per merchant), the latest sessions' status by id (one IN
 * list), the line part of the refs whose lines changed, and one multi-row upsert per chunk.
 */
async function foldRefs(trx: Trx, accs: Acc[]): Promise<void> {
  const rows = new Map<string, InvoiceSummariesTable>();
  const key = (merchantId: string, invoiceRef: string) => `${merchantId}\u0000${invoiceRef}`;
  const byMerchant = new Map<string, string[]>();
  for (const a of accs) byMerchant.set(a.merchantId, [...(byMerchant.get(a.merchantId) ?? []), a.invoiceRef]);
  for (const [merchantId, refs] of byMerchant) {
    const stored = await trx.selectFrom('invoice_summaries').selectAll().where('merchant_id', '=', merchantId).where('invoice_ref', 'in', refs).execute();
    for (const r of stored) {
      rows.set(key(r.merchant_id, r.invoice_ref), {
        ...r, line_count: Number(r.line_count), billed_minor: Number(r.billed_minor), session_count: Number(r.session_count), success_count: Number(r.success_count), paid_minor: Number(r.paid_minor),
        test_line_count: Number(r.test_line_count), test_billed_minor: Number(r.test_billed_minor), test_success_count: Number(r.test_success_count), test_paid_minor: Number(r.test_paid_minor),
      });
    }
  }
  const out: InvoiceSummariesTable[] = [];
  const statusOf: InvoiceSummariesTable[] = [];
  for (const acc of accs) {
    const row = rows.get(key(acc.merchantId, acc.invoiceRef)) ?? empty(acc.merchantId, acc.invoiceRef);
    if (acc.lines) await foldLines(trx, row);
    row.session_count += acc.sessions;
    row.success_count += acc.successes;
    row.paid_minor += acc.paid;
    row.test_success_count += acc.testSuccesses;
    row.test_paid_minor += acc.testPaid;
    row.first_success_at = minOf(row.first_success_at, acc.firstSuccessAt);
    row.sessions_updated_at = maxOf(row.sessions_updated_at, acc.sessionsUpdatedAt);
    const current = row.latest_session_id !== null && row.latest_session_created_at !== null ? { id: row.latest_session_id, createdAt: row.latest_session_created_at } : null;
    if (acc.latest && later(current, acc.latest)) {
      row.latest_session_id = acc.latest.id;
      row.latest_session_created_at = acc.latest.createdAt;
    }
    // A session of the ref was created or moved: the latest one's status (and currency) as it is now, read below.
    if (acc.latest && row.latest_session_id !== null) statusOf.push(row);
    row.remitted_at = row.line_count > 0 ? row.lines_remitted_at : row.first_success_at;
    row.remitted = row.remitted_at === null ? 0 : 1;
    row.updated_at = maxOf(row.lines_updated_at ?? '', row.sessions_updated_at ?? '') ?? '';
    out.push(row);
  }
  if (statusOf.length > 0) {
    const ids = statusOf.map((r) => r.latest_session_id ?? '');
    const found = new Map<string, { status: InvoiceSummariesTable['latest_session_status']; currency: string }>();
    for (let i = 0; i < ids.length; i += UPSERT_CHUNK) {
      for (const s of await trx.selectFrom('checkout_sessions').select(['id', 'status', 'currency']).where('id', 'in', ids.slice(i, i + UPSERT_CHUNK)).execute()) found.set(s.id, s);
    }
    for (const row of statusOf) {
      const s = found.get(row.latest_session_id ?? '');
      if (s) {
        row.latest_session_status = s.status;
        row.latest_session_currency = s.currency;
      }
    }
  }
  for (let i = 0; i < out.length; i += UPSERT_CHUNK) {
    await trx
      .insertInto('invoice_summaries')
      .values(out.slice(i, i + UPSERT_CHUNK))
      .onConflict((oc) => oc.columns(['merchant_id', 'invoice_ref']).doUpdateSet(Object.fromEntries(COLUMNS.map((c) => [c, sql.ref(`excluded.${c}`)]))))
      .execute();
  }
}

/** The line part from the ref's lines (lines are never deleted: none now means none ever, and the part stays empty). */
async function foldLines(trx: Trx, row: InvoiceSummariesTable): Promise<void> {
  const agg = await trx
    .selectFrom('invoice_lines')
    .select((eb) => [
      eb.fn.countAll<number>().as('n'),
      eb.fn.sum<number>('amount_minor').as('billed'),
      eb.fn.min('currency').as('currency'),
      eb.fn.min('remitted').as('all_remitted'),
      eb.fn.max('remitted_at').as('remitted_at'),
      eb.fn.max('updated_at').as('updated_at'),
      eb.fn.sum<number>(eb.case().when('mode', '=', 'test').then(1).else(0).end()).as('test_n'),
      eb.fn.sum<number>(eb.case().when('mode', '=', 'test').then(eb.ref('amount_minor')).else(0).end()).as('test_billed'),
    ])
    .where('merchant_id', '=', row.merchant_id)
    .where('invoice_ref', '=', row.invoice_ref)
    .executeTakeFirstOrThrow();
  const n = Number(agg.n);
  if (n === 0) return;
  row.line_currency = agg.currency;
  row.line_count = n;
  row.billed_minor = Number(agg.billed);
  row.lines_remitted_at = Number(agg.all_remitted) === 1 ? agg.remitted_at : null;
  row.lines_updated_at = agg.updated_at ?? '';
  row.test_line_count = Number(agg.test_n ?? 0);
  row.test_billed_minor = Number(agg.test_billed ?? 0);
}
