import { sql } from 'kysely';
import type { Db } from '../../db/database';
import type { CheckoutSessionsTable } from '../../db/schema';
import { expireAllDue, expireIfDue, isDue, type TransitionDeps } from '../../domain/session-transitions';
import { SESSION_SELECTION } from './session-selection';
import { invalid, notFound } from '../../lib/errors';
import { boundedTotal } from '../../lib/list-total';
import { sessionMode } from '../../lib/ids';
import type {
  InvoiceDetail,
  MerchantSummary,
  RevenueLinesView,
  SessionDetail,
  SessionList,
  SessionRow,
} from '../../../shared/schemas/backoffice';
import type { Rail, SessionStatus } from '../../../shared/schemas/common';
import { actorOf, recordAudit } from '../audit';
import { iso } from '../../lib/iso-param';
import type { StaffContext } from '../auth';
import { invoiceLines } from '../invoices';
import { settlements, type Settlement } from './finance-settlement';
import { merchantScope, searchable, sessionAmount, sessionSearchOf } from '../../db/search';
import { afterCursor, decodeCursor, pageOf } from '../../http/paging';
import { amountPage } from './amount-list';
import { sessionTimeline } from './session-timeline';
import { invoiceDetail as invoiceDetailOf } from './finance-invoices';

export type FinanceDeps = TransitionDeps & { db: Db };

export async function listMerchants(db: Db, staff: StaffContext): Promise<{ merchants: MerchantSummary[] }> {
  let q = db.selectFrom('merchants').select(['id', 'name', 'created_at']).orderBy('name');
  if (staff.role === 'finance') q = q.where('id', '=', staff.merchantId ?? '');
  return { merchants: await q.execute() };
}

// ---------------------------------------------------------------- revenue lines

export async function revenueLines(db: Db, merchantId: string): Promise<RevenueLinesView> {
  const rows = await db.selectFrom('revenue_lines').selectAll().where('merchant_id', '=', merchantId).orderBy('code').execute();
  // rowid: syncs of one millisecond newest first too (migration 0012 gives PostgreSQL one).
  const syncs = await db.selectFrom('revenue_line_syncs').selectAll().where('merchant_id', '=', merchantId).orderBy('created_at', 'desc').orderBy(sql`rowid`, 'desc').limit(20).execute();
  const active = rows.filter((r) => r.active === 1).length;
  return {
    merchant_id: merchantId,
    lines: rows.map((r) => ({
      id: r.id,
      code: r.code,
      name: r.name,
      active: r.active === 1,
      source: r.source,
      last_synced_at: r.last_synced_at,
      updated_at: r.updated_at,
    })),
    counts: { total: rows.length, active, inactive: rows.length - active },
    syncs: syncs.map((s) => ({
      id: s.id,
      source: s.integration_id ? 'api' : 'back office',
      created: s.created,
      updated: s.updated,
      reactivated: s.reactivated,
      deactivated: s.deactivated,
      unchanged: s.unchanged,
      total: s.total,
      error_count: s.error_count,
      created_at: s.created_at,
    })),
  };
}

/**
 * Activates or deactivates one revenue line the way a sync does: the change is counted in a
 * sync-history row (reactivated / deactivated, or unchanged when it already was), so the
 * history shows every change whoever made it. A deactivated code refuses new invoice lines.
 */
export async function setRevenueLineActive(deps: FinanceDeps, staff: StaffContext, ip: string, merchantId: string, lineId: string, active: boolean) {
  await deps.db.transaction().execute(async (trx) => {
    const line = await trx.selectFrom('revenue_lines').selectAll().where('id', '=', lineId).where('merchant_id', '=', merchantId).executeTakeFirst();
    if (!line) throw notFound(`revenue line ${lineId}`);
    const now = deps.clock.now().toISOString();
    const changed = (line.active === 1) !== active;
    if (changed) {
      await trx
        .updateTable('revenue_lines')
        .set({ active: active ? 1 : 0, updated_at: now, last_synced_at: now, source: 'backoffice' })
        .where('id', '=', line.id)
        .where('active', '=', active ? 0 : 1)
        .execute();
    }
    await trx
      .insertInto('revenue_line_syncs')
      .values({
        id: deps.ids.uuid(),
        merchant_id: merchantId,
        integration_id: null,
        created: 0,
        updated: 0,
        reactivated: changed && active ? 1 : 0,
        deactivated: changed && !active ? 1 : 0,
        unchanged: changed ? 0 : 1,
        total: 1,
        error_count: 0,
        created_at: now,
      })
      .execute();
    await recordAudit(trx, deps, actorOf(staff, ip), {
      action: active ? 'revenue_line.activate' : 'revenue_line.deactivate',
      targetType: 'revenue_line',
      targetId: line.id,
      merchantId,
      before: { code: line.code, active: line.active === 1 },
      after: { code: line.code, active },
    });
  });
  return revenueLines(deps.db, merchantId);
}

// ---------------------------------------------------------------- invoices

export { listInvoices } from './finance-invoices';

export async function invoiceDetail(db: Db, merchantId: string, invoiceRef: string, page: { limit: number; cursor?: string | undefined } = { limit: 50 }): Promise<InvoiceDetail> {
  return invoiceDetailOf(db, merchantId, invoiceRef, page, (rows) => withSettlements(db, rows));
}

// ---------------------------------------------------------------- sessions

export const sessionBase = (db: Db) =>
  db.selectFrom('checkout_sessions as s').innerJoin('merchants as m', 'm.id', 's.merchant_id').select(SESSION_SELECTION).select('m.name as merchant_name');

/** A session row with what settled it (base, fee and collected amount stay apart everywhere). */
const toSessionRow = (s: CheckoutSessionsTable & { merchant_name: string }, paid: Map<string, Settlement>): SessionRow => ({
  id: s.id,
  status: s.status,
  amount_minor: s.amount_minor,
  currency: s.currency,
  invoice_ref: s.invoice_ref,
  description: s.description,
  customer_name: s.customer_name,
  paid_rail: s.paid_rail,
  merchant_id: s.merchant_id,
  merchant_name: s.merchant_name,
  created_at: s.created_at,
  expires_at: s.expires_at,
  finalized_at: s.finalized_at,
  fee_minor: paid.get(s.id)?.fee_minor ?? null,
  collected_minor: paid.get(s.id)?.collected_minor ?? null,
  payment_reference: paid.get(s.id)?.reference ?? null,
  mode: sessionMode(s.id),
});

async function withSettlements<T extends CheckoutSessionsTable & { merchant_name: string }>(db: Db, rows: T[]): Promise<SessionRow[]> {
  const paid = await settlements(db, rows.filter((r) => r.status === 'success').map((r) => r.id));
  return rows.map((r) => toSessionRow(r, paid));
}

export interface SessionFilter {
  status?: SessionStatus | undefined;
  rail?: Rail | undefined;
  invoice_ref?: string | undefined;
  q?: string | undefined;
  amount_minor?: number | undefined;
  from?: string | undefined;
  to?: string | undefined;
  mode?: 'live' | 'test' | 'all' | undefined;
  sort: 'created_at' | 'amount_minor' | 'status' | 'invoice_ref';
  dir: 'asc' | 'desc';
  limit: number;
  offset: number;
  cursor?: string | undefined;
}

/**
 * Sessions of one merchant. `rail` matches the rail that paid, or any rail tried (an attempt,
 * or a cash slip); `invoice_ref` matches anywhere in the ref; `q` is the free search of
 * server/db/search/; `amount_minor` the base or collected amount; `from`/`to` bound
 * `created_at` (to exclusive); `mode` keeps live or test sessions only (by the id's prefix). `total` counts at most `cap` sessions (server/lib/list-total.ts).
 */
export async function listSessions(deps: FinanceDeps, merchantId: string, f: SessionFilter, cap: number): Promise<SessionList> {
  // Sessions past their time read as expired here too, as on every other read: found on the open sessions' expiry
  // index (0013), the merchant a filter (merchantScope), or SQLite walks every session of the merchant (0.4 s at 200k).
  // A plain read: the write transaction (SQLite's write lock, PostgreSQL's BEGIN and COMMIT) only when one is due.
  const due = await deps.db
    .selectFrom('checkout_sessions as s')
    .select('s.id')
    .where(merchantScope(true), '=', merchantId)
    .where('s.status', '=', 'open')
    .where('s.expires_at', '<=', deps.clock.now().toISOString())
    .limit(500)
    .execute();
  await expireAllDue(deps, due.map((s) => s.id));
  const from = iso('from', f.from);
  const to = iso('to', f.to);
  if (from && to && from >= to) throw invalid('to', 'must be after from');
  const mode = f.mode === 'live' || f.mode === 'test' ? f.mode : undefined;
  const search = sessionSearchOf(deps.db);
  const [scope, ref, text] = [{ merchantId, cap, now: deps.clock.now().getTime() }, f.invoice_ref, f.q?.trim()];
  // An amount alone, listed by time: the count and page among the amount's (id, created_at) pairs (amount-list.ts).
  if (f.amount_minor !== undefined && f.sort === 'created_at' && !ref && !text && !f.status && !f.rail && !from && !to && !mode) {
    const found = await amountPage(deps.db, merchantId, f.amount_minor, f, cap);
    if (!found.total_capped) {
      const byId = new Map((found.ids.length > 0 ? await sessionBase(deps.db).where('s.id', 'in', found.ids).execute() : []).map((r) => [r.id, r]));
      const rows = found.ids.map((id) => byId.get(id)).filter((r) => r !== undefined);
      const { page, next_cursor } = pageOf(rows, f.limit, 'created_at', f.dir, (r) => r.created_at);
      return { sessions: await withSettlements(deps.db, page), total: found.total, total_capped: false, next_cursor };
    }
  }
  // A "contains" search reads the trigram index, which may be filled behind the writes: the sessions not yet in it first.
  if (searchable(ref ?? '') || searchable(text ?? '')) await search.catchUp(deps.db);
  let q = sessionBase(deps.db).where(merchantScope(Boolean(ref || text || f.amount_minor !== undefined)), '=', merchantId);
  if (f.status) q = q.where('s.status', '=', f.status);
  if (mode) q = q.where(sql<string>`substr(s.id, 1, 8)`, mode === 'test' ? '=' : '<>', 'cs_test_');
  // The texts' sessions are found once (at most `cap` each, the newest), then count and page read among them.
  let [capped, full] = [false, false];
  for (const [t, only] of [[ref, 'invoice_ref'], [text, undefined]] as const) {
    if (!t) continue;
    const hits = await search.hits(deps.db, t, scope, only);
    [capped, full] = [capped || hits.capped, hits.full && !(ref && text)];
    q = q.where((eb) => search.among(eb, scope, hits, f.sort === 'created_at'));
  }
  // More than `cap` of the merchant's sessions match one text and nothing else narrows them: the count is the cap.
  full &&= !f.status && !f.rail && f.amount_minor === undefined && !from && !to && !mode;
  if (f.amount_minor !== undefined) {
    const amount = f.amount_minor;
    q = q.where((eb) => sessionAmount(eb, amount, scope));
  }
  if (from) q = q.where('s.created_at', '>=', from);
  if (to) q = q.where('s.created_at', '<', to);
  if (f.rail) {
    const rail = f.rail;
    q = q.where((eb) =>
      eb.or([
        eb('s.paid_rail', '=', rail),
        eb.exists(eb.selectFrom('payment_attempts as a').select('a.id').whereRef('a.session_id', '=', 's.id').where('a.rail', '=', rail)),
        ...(rail === 'cash' ? [eb.exists(eb.selectFrom('cash_slips as c').select('c.id').whereRef('c.session_id', '=', 's.id'))] : []),
      ]),
    );
  }
  const counted = full ? { total: cap, total_capped: true } : await boundedTotal(deps.db, q, cap);
  // A search that kept only its newest `cap` sessions may have left older ones out: `total` is then a lower bound.
  const total = capped ? { ...counted, total_capped: true } : counted;
  if (f.cursor) {
    if (f.offset > 0) throw invalid('cursor', 'cannot be combined with offset');
    const c = decodeCursor(f.cursor, f.sort, f.dir);
    q = q.where((eb) => afterCursor(eb, `s.${f.sort}`, 's.id', f.dir, c));
  }
  const [by, dir] = [`s.${f.sort}` as const, f.dir];
  // A searched list's page as the search reads it (SessionSearch `page`: sorted keys first where that pays).
  const rows =
    ref || text
      ? await search.page(q, sessionBase(deps.db), (l) => l.orderBy(by, dir).orderBy('s.id', dir), f.limit + 1, f.offset)
      : await q.orderBy(by, dir).orderBy('s.id', dir).limit(f.limit + 1).offset(f.offset).execute();
  const { page, next_cursor } = pageOf(rows, f.limit, f.sort, f.dir, (r) => r[f.sort]);
  return { sessions: await withSettlements(deps.db, page), ...total, next_cursor };
}

/** One session with its invoice lines and everything that happened to it, oldest first. */
export async function sessionDetail(deps: FinanceDeps, staff: StaffContext, sessionId: string): Promise<SessionDetail> {
  const find = () => sessionBase(deps.db).where('s.id', '=', sessionId).executeTakeFirst();
  let s = await find();
  // Past its time and the sweeper not there yet: expired now (in a transaction of its own), then read again.
  if (isDue(s, deps.clock.now())) {
    await deps.db.transaction().execute((trx) => expireIfDue(trx, deps, sessionId));
    s = await find();
  }
  if (!s || (staff.role === 'finance' && s.merchant_id !== staff.merchantId)) throw notFound(`session ${sessionId}`);
  const db = deps.db;
  const [timeline, lines] = await Promise.all([sessionTimeline(db, s), invoiceLines(db, { merchantId: s.merchant_id, mode: sessionMode(s.id), invoiceRef: s.invoice_ref })]);
  return {
    session: { ...(await withSettlements(db, [s]))[0]!, customer_email: s.customer_email, metadata: JSON.parse(s.metadata) as Record<string, unknown> },
    lines,
    timeline,
  };
}
