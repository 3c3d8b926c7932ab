import { sql } from 'kysely';
import type { Db } from '../../db/database';
import type { ExceptionReviewsTable } from '../../db/schema';
import { EXCEPTION_KINDS, type ExceptionItem, type ExceptionItemList, type ExceptionKind, type ExceptionStatus } from '../../../shared/schemas/finance-exceptions';
import { notFound } from '../../lib/errors';
import { actorOf, recordAudit, type AuditDeps } from '../audit';
import type { StaffContext } from '../auth';
import { CSV_TIME_ZONE, csvCell } from '../../lib/csv';
import { EXCEPTION_CSV_COLUMNS, exceptionCsvRow, findExceptions } from './finance-exceptions.service';

type Found = Awaited<ReturnType<typeof findExceptions>>[number];
const REFS_PER_QUERY = 500;

interface Group {
  invoiceRef: string;
  found: Found[];
  status: ExceptionStatus;
  review: ExceptionReviewsTable | null;
  reopened: boolean;
  detectedAt: string;
}

/**
 * The merchant's exceptions as work items: one per invoice (its kinds merged), each open unless
 * a review resolved or ignored it at the invoice's current figures (`exception_reviews`,
 * migration 0038). Newest first.
 */
async function groups(db: Db, merchantId: string): Promise<Group[]> {
  const all = await findExceptions(db, merchantId);
  const byRef = new Map<string, Found[]>();
  for (const f of all) byRef.set(f.invoice_ref, [...(byRef.get(f.invoice_ref) ?? []), f]);
  const refs = [...byRef.keys()];
  const reviews = new Map<string, ExceptionReviewsTable>();
  for (let i = 0; i < refs.length; i += REFS_PER_QUERY) {
    const rows = await db.selectFrom('exception_reviews').selectAll().where('merchant_id', '=', merchantId).where('invoice_ref', 'in', refs.slice(i, i + REFS_PER_QUERY)).execute();
    for (const r of rows) reviews.set(r.invoice_ref, r);
  }
  const out: Group[] = [];
  for (const [ref, found] of byRef) {
    const f = found[0]!.figures;
    const review = reviews.get(ref) ?? null;
    const holds = review !== null && Number(review.success_count) === f.success_count && Number(review.paid_minor) === f.paid_minor && Number(review.billed_minor) === f.billed_minor;
    const status: ExceptionStatus = review && holds ? review.status : 'open';
    const detectedAt = found.reduce((a, x) => (x.detected_at > a ? x.detected_at : a), '');
    out.push({ invoiceRef: ref, found, status, review, reopened: review !== null && review.status !== 'open' && !holds, detectedAt });
  }
  return out.sort((a, b) => (a.detectedAt === b.detectedAt ? (a.invoiceRef < b.invoiceRef ? -1 : 1) : a.detectedAt < b.detectedAt ? 1 : -1));
}

function item(g: Group): ExceptionItem {
  const first = g.found[0]!;
  const kinds = EXCEPTION_KINDS.filter((k) => g.found.some((f) => f.kind === k));
  const collected = first.figures.collected_minor;
  const billed = first.figures.billed_minor;
  // One sentence per kind: the newest exception of each.
  const summaries = kinds.map((k) => g.found.filter((f) => f.kind === k).sort((a, b) => (a.detected_at < b.detected_at ? 1 : -1))[0]!.summary());
  return {
    invoice_ref: g.invoiceRef,
    currency: first.currency,
    kinds,
    billed_minor: billed,
    collected_minor: collected,
    difference_minor: collected - billed,
    payments: first.figures.success_count,
    detected_at: g.detectedAt,
    summaries,
    status: g.status,
    note: g.review?.note ?? null,
    reviewed_by: g.review?.reviewed_by_name ?? null,
    reviewed_at: g.review?.reviewed_at ?? null,
    reopened: g.reopened,
    exceptions: g.found.map((f) => f.build()),
  };
}

export async function listExceptionItems(
  db: Db,
  merchantId: string,
  f: { status: ExceptionStatus | 'all'; kind?: ExceptionKind | undefined; invoiceRef?: string | undefined; limit: number; offset: number },
): Promise<ExceptionItemList> {
  const all = (await groups(db, merchantId)).filter((g) => f.invoiceRef === undefined || g.invoiceRef === f.invoiceRef);
  const ofKind = f.kind ? all.filter((g) => g.found.some((x) => x.kind === f.kind)) : all;
  const counts = { open: 0, resolved: 0, ignored: 0 };
  for (const g of ofKind) counts[g.status]++;
  const matching = f.status === 'all' ? ofKind : ofKind.filter((g) => g.status === f.status);
  return { items: matching.slice(f.offset, f.offset + f.limit).map(item), total: matching.length, counts };
}

/** The review of one invoice's exception by a clerk: its status and a note, who and when, audited in the same transaction. */
export async function reviewException(deps: AuditDeps & { db: Db }, staff: StaffContext, ip: string, merchantId: string, invoiceRef: string, body: { status: ExceptionStatus; note: string }) {
  const at = deps.clock.now().toISOString();
  return deps.db.transaction().execute(async (trx) => {
    const s = await trx
      .selectFrom('invoice_summaries')
      .select(['success_count', 'paid_minor', 'billed_minor', 'line_count'])
      .where('merchant_id', '=', merchantId)
      .where('invoice_ref', '=', invoiceRef)
      .executeTakeFirst();
    const n = s ? { success: Number(s.success_count), paid: Number(s.paid_minor), billed: Number(s.billed_minor), lines: Number(s.line_count) } : null;
    // Every invoice with two payments or more, or one that differs from its billed total, holds an exception (finance-exceptions.service.ts).
    if (!n || !(n.success > 1 || (n.success === 1 && n.lines > 0 && n.paid !== n.billed))) throw notFound(`exception on invoice ${invoiceRef}`);
    const before = await trx.selectFrom('exception_reviews').select(['status', 'note']).where('merchant_id', '=', merchantId).where('invoice_ref', '=', invoiceRef).executeTakeFirst();
    const row: ExceptionReviewsTable = {
      merchant_id: merchantId,
      invoice_ref: invoiceRef,
      status: body.status,
      note: body.note,
      reviewed_by: staff.id,
      reviewed_by_name: staff.username,
      reviewed_at: at,
      success_count: n.success,
      paid_minor: n.paid,
      billed_minor: n.billed,
    };
    await trx
      .insertInto('exception_reviews')
      .values(row)
      .onConflict((oc) =>
        oc.columns(['merchant_id', 'invoice_ref']).doUpdateSet({
          status: sql.ref('excluded.status'),
          note: sql.ref('excluded.note'),
          reviewed_by: sql.ref('excluded.reviewed_by'),
          reviewed_by_name: sql.ref('excluded.reviewed_by_name'),
          reviewed_at: sql.ref('excluded.reviewed_at'),
          success_count: sql.ref('excluded.success_count'),
          paid_minor: sql.ref('excluded.paid_minor'),
          billed_minor: sql.ref('excluded.billed_minor'),
        }),
      )
      .execute();
    await recordAudit(trx, deps, actorOf(staff, ip), {
      action: body.status === 'resolved' ? 'exception.resolve' : body.status === 'ignored' ? 'exception.ignore' : 'exception.reopen',
      targetType: 'invoice',
      targetId: invoiceRef,
      merchantId,
      before: before ? { exception_status: before.status, note: before.note } : { exception_status: 'open' },
      after: { exception_status: body.status, note: body.note },
    });
    return { invoice_ref: invoiceRef, status: body.status, note: body.note, reviewed_by: row.reviewed_by_name, reviewed_at: at };
  });
}

/** Work waiting for the caller, for the menu and the landing page: open exceptions (finance: its merchant; admin: every merchant), deposits waiting for review (supervisors). */
export async function workCounts(db: Db, staff: StaffContext, openExceptions: (merchantId: string) => Promise<number>): Promise<{ exceptions_open: number | null; deposits_waiting: number | null }> {
  let exceptions: number | null = null;
  if (staff.role === 'finance' && staff.merchantId) exceptions = await openExceptions(staff.merchantId);
  if (staff.role === 'admin') {
    exceptions = 0;
    for (const m of await db.selectFrom('merchants').select('id').orderBy('id').execute()) exceptions += await openExceptions(m.id);
  }
  let deposits: number | null = null;
  if (staff.role === 'supervisor') {
    const row = await db.selectFrom('cash_deposits').select((eb) => eb.fn.countAll<number>().as('n')).where('status', '=', 'under_review').executeTakeFirstOrThrow();
    deposits = Number(row.n);
  }
  return { exceptions_open: exceptions, deposits_waiting: deposits };
}

/** The exceptions as CSV, one row per exception with its invoice's work-item state (amounts as numbers; text cells neutralised). */
export async function exceptionsCsv(db: Db, merchantId: string, kind: ExceptionKind | undefined): Promise<string> {
  const lines = [EXCEPTION_CSV_COLUMNS.join(',')];
  const rows: Array<{ at: string; id: string; cells: Array<string | number | null> }> = [];
  for (const g of await groups(db, merchantId)) {
    for (const f of g.found) {
      if (kind && f.kind !== kind) continue;
      rows.push({ at: f.detected_at, id: f.id, cells: [...exceptionCsvRow(f), g.status, g.review?.note ?? null, g.review?.reviewed_by_name ?? null, g.review?.reviewed_at ?? null, CSV_TIME_ZONE, f.build().mode] });
    }
  }
  rows.sort((a, b) => (a.at === b.at ? (a.id < b.id ? -1 : 1) : a.at < b.at ? 1 : -1));
  for (const r of rows) lines.push(r.cells.map(csvCell).join(','));
  return `${lines.join('\r\n')}\r\n`;
}
