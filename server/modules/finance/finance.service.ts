import { sql } from 'kysely';
import type { Db } from '../../db/database';
import type { CheckoutSessionsTable } from '../../db/schema';
import { expireAllDue, expireIfDue, isDue, NO_STATUS, type TransitionDeps } from '../../domain/session-transitions';
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
  TimelineEntry,
} from '../../../shared/schemas/backoffice';
import type { Rail, SessionStatus } from '../../../shared/schemas/common';
import { actorOf, recordAudit } from '../audit';
import { iso } from '../../lib/iso-param';
import type { StaffContext } from '../auth';
import { invoiceLines } from '../invoices';
import { formatMoney as money } from '../../../shared/money';
import { cardLabel, declineReasonLabel, eventTypeLabel, railLabel, SESSION_STATUS_LABELS, SLIP_STATUS_LABELS } from '../../../shared/labels';
import { networkLabel } from '../../../shared/countries';
import { settlements, type Settlement } from './finance-settlement';
import { merchantScope, searchable, sessionAmount, sessionSearchOf } from '../../db/search';
import { afterCursor, decodeCursor, pageOf } from '../../http/paging';
import { amountPage } from './amount-list';
import { deliveryEntries } from './session-deliveries';
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


/**
 * Gross, fee and net in words, the same amounts the list and the CSV show:
 * "GHS 185.00 charged · card fee GHS 3.61 paid by the merchant · GHS 181.39 to the merchant";
 * a payer-borne fee is part of what was charged ("GHS 102.00 charged · cash fee GHS 2.00 paid by the payer · GHS 100.00 to the merchant").
 */
const breakdown = (rail: string, base: number, fee: number, total: number, currency: string) => {
  if (fee === 0) return `${money(total, currency)} charged · no fee · ${money(total, currency)} to the merchant`;
  const payer = total > base;
  return `${money(total, currency)} charged · ${rail} fee ${money(fee, currency)} paid by the ${payer ? 'payer' : 'merchant'} · ${money(total - fee, currency)} to the merchant`;
};
/** How an attempt ended, in words. */
const ATTEMPT_OUTCOMES: Readonly<Record<string, string>> = { succeeded: 'succeeded', declined: 'was declined', expired: 'expired', failed: 'failed', cancelled: 'was cancelled' };
const stateWord = (status: string) => SESSION_STATUS_LABELS[status as SessionStatus] ?? status;

/**
 * A status change's recorded cause as a sentence: rails in words, internal ids and provider
 * status codes left out ("card payment pa_8f… approved" → "Card payment approved"; the ids are on
 * the attempt and deposit entries of the same timeline).
 */
function causeInWords(cause: string): string {
  if (cause === 'expires_at passed while open') return 'The time to pay ran out before a payment was made';
  const s = cause
    .replace(/\s*\([A-Z0-9_:\- ]+\)/g, '')
    .replace(/\s\b(?:pa|dep|cs)_[A-Za-z0-9_]+/g, '')
    .replace(/\b(momo|card|bank_transfer|cash) (?:attempt|payment)\b/g, (_, rail: string) => `${railLabel(rail)} payment`)
    .replace(/; /g, ', ');
  return `${s.charAt(0).toUpperCase()}${s.slice(1)}`;
}
const feeWord = (rail: string) => (rail === 'momo' ? 'Mobile Money' : rail === 'bank_transfer' ? 'bank transfer' : rail);

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
  const [history, attempts, slips, deposits, events, lines] = await Promise.all([
    db.selectFrom('session_history').selectAll().where('session_id', '=', s.id).execute(),
    db.selectFrom('payment_attempts').selectAll().where('session_id', '=', s.id).execute(),
    db.selectFrom('cash_slips').selectAll().where('session_id', '=', s.id).execute(),
    db
      .selectFrom('cash_deposits as d')
      .innerJoin('staff_users as rec', 'rec.id', 'd.recorded_by')
      .leftJoin('staff_users as rev', 'rev.id', 'd.reviewed_by')
      .selectAll('d')
      .select(['rec.username as recorded_by_username', 'rev.username as reviewed_by_username'])
      .where('d.session_id', '=', s.id)
      .execute(),
    db.selectFrom('events').select(['id', 'type', 'created_at']).where('session_id', '=', s.id).execute(),
    invoiceLines(db, { merchantId: s.merchant_id, mode: sessionMode(s.id), invoiceRef: s.invoice_ref }),
  ]);
  const t: TimelineEntry[] = [{ at: s.created_at, kind: 'created', code: 'session_created', args: {}, title: 'Session created', detail: `${money(s.amount_minor, s.currency)} for invoice ${s.invoice_ref}`, ref: s.id }];
  // The creation row (none → open) is the "Session created" entry above, which sessions made before it had too.
  for (const h of history.filter((row) => row.from_status !== NO_STATUS)) {
    t.push({ at: h.at, kind: 'transition', code: 'transition', args: { from: h.from_status, to: h.to_status }, title: `Status changed from ${stateWord(h.from_status)} to ${stateWord(h.to_status)}`, detail: causeInWords(h.cause), ref: null });
  }
  for (const a of attempts) {
    const rail = railLabel(a.rail);
    const who =
      a.rail === 'momo'
        ? ` · ${a.operator ? networkLabel(a.operator) : 'Mobile Money'}${a.phone_last4 ? ` number ending ${a.phone_last4}` : ''}`
        : a.rail === 'card'
          ? ` · ${cardLabel(a.card_brand, a.card_last4)}`
          : a.payment_reference
            ? ` · reference ${a.payment_reference}`
            : '';
    t.push({ at: a.created_at, kind: 'attempt', code: 'attempt_started', args: { rail: a.rail }, title: `${rail} attempt started`, detail: `${breakdown(feeWord(a.rail), a.base_minor, a.fee_minor, a.amount_charged_minor, a.currency)}${who}`, ref: a.id });
    if (a.finalized_at) {
      t.push({ at: a.finalized_at, kind: 'attempt', code: 'attempt_finished', args: { rail: a.rail, status: a.status }, title: `${rail} attempt ${ATTEMPT_OUTCOMES[a.status] ?? a.status}`, detail: a.decline_reason ? `Reason: ${declineReasonLabel(a.decline_reason)}` : '', ref: a.id });
    }
  }
  for (const sl of slips) {
    t.push({ at: sl.created_at, kind: 'slip', code: 'slip_issued', args: { reference: sl.reference }, title: `Cash slip ${sl.reference} issued`, detail: `${breakdown('cash', sl.base_minor, sl.fee_minor, sl.amount_minor, sl.currency)} · now ${SLIP_STATUS_LABELS[sl.status as keyof typeof SLIP_STATUS_LABELS] ?? sl.status}`, ref: sl.reference });
  }
  for (const d of deposits) {
    t.push({ at: d.created_at, kind: 'deposit', code: 'deposit_recorded', args: {}, title: 'Cash deposit recorded', detail: `${money(d.amount_minor, d.currency)} by ${d.recorded_by_username}${d.note ? ` · “${d.note}”` : ''}`, ref: d.id });
    if (d.reviewed_at) {
      t.push({
        at: d.reviewed_at,
        kind: 'deposit',
        code: 'deposit_reviewed',
        args: { status: d.status },
        title: `Cash deposit ${d.status}`,
        detail: `by ${d.reviewed_by_username ?? 'unknown'}${d.review_reason ? ` · ${d.review_reason}` : ''}`,
        ref: d.id,
      });
    }
  }
  for (const e of events) t.push({ at: e.created_at, kind: 'event', code: 'event', args: { type: e.type }, title: `Merchant notified: ${eventTypeLabel(e.type)}`, detail: '', ref: e.id });
  t.push(...(await deliveryEntries(db, events.map((e) => e.id))));
  const kindOrder = ['created', 'attempt', 'slip', 'deposit', 'transition', 'event', 'delivery'];
  t.sort((a, b) => (a.at === b.at ? kindOrder.indexOf(a.kind) - kindOrder.indexOf(b.kind) : a.at < b.at ? -1 : 1));
  return {
    session: { ...(await withSettlements(db, [s]))[0]!, customer_email: s.customer_email, metadata: JSON.parse(s.metadata) as Record<string, unknown> },
    lines,
    timeline: t,
  };
}
