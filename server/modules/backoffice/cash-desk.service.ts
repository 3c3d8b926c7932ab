import type { Kysely, Transaction } from 'kysely';
import type { Db } from '../../db/database';
import type { CashDepositsTable, Database } from '../../db/schema';
import { applyTransition, expireIfDue, requireTransition, type TransitionDeps } from '../../domain/session-transitions';
import { AppError, invalid, notFound } from '../../lib/errors';
import { slipReferenceKey } from '../../lib/slip-reference';
import type { Rail } from '../../../shared/schemas/common';
import { findSession } from '../checkout/checkout.repository';
import { slipBody } from '../checkout/slip-body';
import type { CashDeposit, DEPOSIT_SORTS, DepositFacets, DepositList, DepositResult, DepositStatus, ScannedSlip, ShiftTotal } from '../../../shared/schemas/backoffice';
import { dayBounds, localDay, serverTimeZone } from '../../lib/local-day';
import { actorOf, recordAudit } from './audit.service';
import type { StaffContext } from './staff-auth';

/**
 * The teller cash desk and the supervisor's review (maker-checker). Every move is a
 * conditional update (`… WHERE status = 'active'` / `'under_review'`) inside one transaction
 * together with the session transition, so two tellers recording the same slip, or two
 * supervisors approving the same deposit, cannot both win: the loser gets 409 STATE_CONFLICT
 * and exactly one transition and one event are written.
 */
export type CashDeskDeps = TransitionDeps & { db: Db };

type Q = Kysely<Database> | Transaction<Database>;

const depositQuery = (q: Q) =>
  q
    .selectFrom('cash_deposits as d')
    .innerJoin('cash_slips as sl', 'sl.id', 'd.slip_id')
    .innerJoin('checkout_sessions as s', 's.id', 'd.session_id')
    .innerJoin('merchants as m', 'm.id', 's.merchant_id')
    .innerJoin('integrations as i', 'i.id', 's.integration_id')
    .innerJoin('staff_users as rec', 'rec.id', 'd.recorded_by')
    .leftJoin('staff_users as rev', 'rev.id', 'd.reviewed_by')
    .leftJoin('branches as br', 'br.id', 'd.branch_id')
    .leftJoin('banks as bk', 'bk.id', 'br.bank_id')
    .selectAll('d')
    .select([
      'sl.reference as slip_reference',
      's.status as session_status',
      's.merchant_id',
      's.invoice_ref',
      's.customer_name',
      's.description',
      'i.mode',
      'm.name as merchant_name',
      'rec.username as recorded_by_username',
      'rev.username as reviewed_by_username',
      'br.name as branch_name',
      'bk.name as bank_name',
    ]);

type DepositRow = Awaited<ReturnType<ReturnType<typeof depositQuery>['executeTakeFirstOrThrow']>>;

function toDeposit(r: DepositRow): CashDeposit {
  return {
    id: r.id,
    status: r.status,
    amount_minor: r.amount_minor,
    currency: r.currency,
    slip_reference: r.slip_reference,
    session_id: r.session_id,
    session_status: r.session_status,
    merchant_id: r.merchant_id,
    merchant_name: r.merchant_name,
    invoice_ref: r.invoice_ref,
    customer_name: r.customer_name ?? '',
    description: r.description ?? '',
    mode: r.mode,
    branch_id: r.branch_id,
    branch_name: r.branch_name ? `${r.bank_name ?? ''}, ${r.branch_name}`.replace(/^, /, '') : null,
    note: r.note,
    recorded_by: { id: r.recorded_by, username: r.recorded_by_username },
    reviewed_by: r.reviewed_by ? { id: r.reviewed_by, username: r.reviewed_by_username ?? '' } : null,
    review_reason: r.review_reason,
    created_at: r.created_at,
    reviewed_at: r.reviewed_at,
  };
}

async function findDeposit(q: Q, id: string): Promise<CashDeposit> {
  const row = await depositQuery(q).where('d.id', '=', id).executeTakeFirst();
  if (!row) throw notFound(`deposit ${id}`);
  return toDeposit(row);
}

/**
 * The slip a teller scanned or typed: its token (`slp_…`, exact), or its printed reference in
 * any case, with or without dashes and spaces (CONTRACT §3; server/lib/slip-reference.ts).
 */
async function findSlip(q: Q, tokenOrReference: string) {
  const byToken = await q.selectFrom('cash_slips').selectAll().where('token', '=', tokenOrReference.trim()).executeTakeFirst();
  if (byToken) return byToken;
  const key = slipReferenceKey(tokenOrReference);
  const byReference = key ? await q.selectFrom('cash_slips').selectAll().where('reference_key', '=', key).executeTakeFirst() : undefined;
  if (!byReference) throw notFound(`cash slip ${tokenOrReference}`);
  return byReference;
}

async function scanned(q: Q, deps: CashDeskDeps, slipId: string): Promise<ScannedSlip> {
  const slip = await q.selectFrom('cash_slips').selectAll().where('id', '=', slipId).executeTakeFirstOrThrow();
  const s = await findSession(q, slip.session_id);
  const latest = await depositQuery(q).where('d.slip_id', '=', slip.id).orderBy('d.created_at', 'desc').executeTakeFirst();
  return {
    ...slipBody(slip, s, false, deps.clock.now()),
    session_status: s.status,
    paid_rail: (s.paid_rail as Rail | null) ?? null,
    mode: s.mode,
    deposit: latest ? toDeposit(latest) : null,
  };
}

/** GET /cash-slips/{slip_token}: the slip as scanned (expiring its session first when its time has passed). */
export async function lookupSlip(deps: CashDeskDeps, tokenOrReference: string): Promise<ScannedSlip> {
  return deps.db.transaction().execute(async (trx) => {
    const slip = await findSlip(trx, tokenOrReference);
    await expireIfDue(trx, deps, slip.session_id);
    return scanned(trx, deps, slip.id);
  });
}

/** POST /cash-slips/{slip_token}/deposits: the teller records the counted cash; the session waits for review (pending). */
export async function recordDeposit(
  deps: CashDeskDeps,
  staff: StaffContext,
  ip: string,
  tokenOrReference: string,
  input: { amount_minor: number; branch_id?: string | undefined; note?: string | undefined },
): Promise<DepositResult> {
  return deps.db.transaction().execute(async (trx) => {
    const slip = await findSlip(trx, tokenOrReference);
    await expireIfDue(trx, deps, slip.session_id);
    const s = await findSession(trx, slip.session_id);
    const now = deps.clock.now().toISOString();
    if (slip.status === 'under_review') throw new AppError('STATE_CONFLICT', `slip ${slip.reference} already has a deposit under review`);
    if (slip.status !== 'active') throw new AppError('STATE_CONFLICT', `slip ${slip.reference} is ${slip.status}; no deposit can be recorded on it`);
    if (s.status !== 'open') {
      throw new AppError('SESSION_NOT_PAYABLE', `session ${s.id} is ${s.status}, not open for payment; the slip cannot be paid`);
    }
    if (slip.expires_at <= now) throw new AppError('STATE_CONFLICT', `slip ${slip.reference} expired at ${slip.expires_at}`);
    if (input.amount_minor !== slip.amount_minor) {
      throw new AppError(
        'PAYMENT_AMOUNT_MISMATCH',
        `amount_minor: counted ${input.amount_minor} differs from the slip amount ${slip.amount_minor}; recount, or send the payer back for a new slip`,
      );
    }
    const branchId = input.branch_id ?? staff.branchId;
    if (branchId) {
      const branch = await trx
        .selectFrom('branches as br')
        .innerJoin('banks as bk', 'bk.id', 'br.bank_id')
        .select('br.id')
        .where('br.id', '=', branchId)
        .where('br.active', '=', 1)
        .where('bk.active', '=', 1)
        .executeTakeFirst();
      if (!branch) throw invalid('branch_id', `no active branch ${branchId}`);
    }
    const moved = await trx
      .updateTable('cash_slips')
      .set({ status: 'under_review', updated_at: now })
      .where('id', '=', slip.id)
      .where('status', '=', 'active')
      .executeTakeFirst();
    if (Number(moved.numUpdatedRows) !== 1) throw new AppError('STATE_CONFLICT', `slip ${slip.reference} was recorded by someone else meanwhile`);
    const row: CashDepositsTable = {
      id: deps.ids.token('dep', 20),
      slip_id: slip.id,
      session_id: s.id,
      amount_minor: input.amount_minor,
      currency: slip.currency,
      branch_id: branchId ?? null,
      note: input.note ? input.note : null,
      status: 'under_review',
      recorded_by: staff.id,
      reviewed_by: null,
      review_reason: null,
      created_at: now,
      reviewed_at: null,
    };
    await trx.insertInto('cash_deposits').values(row).execute();
    await requireTransition(trx, deps, s.id, { kind: 'begin_confirmation', cause: `cash deposit ${row.id} recorded by ${staff.username}; awaiting supervisor review` });
    await recordAudit(trx, deps, actorOf(staff, ip), {
      action: 'deposit.record',
      targetType: 'cash_deposit',
      targetId: row.id,
      merchantId: s.merchant_id,
      before: { slip_status: 'active', session_status: 'open' },
      after: { deposit_status: 'under_review', slip_status: 'under_review', session_status: 'pending', amount_minor: row.amount_minor, slip_reference: slip.reference },
    });
    return { deposit: await findDeposit(trx, row.id), slip: await scanned(trx, deps, slip.id) };
  });
}

/** Loads a deposit for review, enforcing maker-checker: the recorder never reviews their own. */
async function forReview(trx: Transaction<Database>, staff: StaffContext, id: string) {
  const d = await trx.selectFrom('cash_deposits').selectAll().where('id', '=', id).executeTakeFirst();
  if (!d) throw notFound(`deposit ${id}`);
  if (d.recorded_by === staff.id) throw new AppError('FORBIDDEN', 'maker-checker: the staff member who recorded a deposit may not review it; ask another supervisor');
  return d;
}

async function markReviewed(trx: Transaction<Database>, deps: CashDeskDeps, staff: StaffContext, id: string, status: DepositStatus, reason: string | null) {
  const moved = await trx
    .updateTable('cash_deposits')
    .set({ status, reviewed_by: staff.id, reviewed_at: deps.clock.now().toISOString(), review_reason: reason })
    .where('id', '=', id)
    .where('status', '=', 'under_review')
    .executeTakeFirst();
  if (Number(moved.numUpdatedRows) !== 1) {
    const now = await trx.selectFrom('cash_deposits').select('status').where('id', '=', id).executeTakeFirstOrThrow();
    throw new AppError('STATE_CONFLICT', `deposit ${id} is already ${now.status}; it was reviewed by someone else`);
  }
}

/** POST /deposits/{id}/approve: the cash is confirmed, the session succeeds and checkout.session.completed is emitted. */
export async function approveDeposit(deps: CashDeskDeps, staff: StaffContext, ip: string, id: string): Promise<CashDeposit> {
  return deps.db.transaction().execute(async (trx) => {
    const d = await forReview(trx, staff, id);
    await markReviewed(trx, deps, staff, id, 'approved', null);
    const now = deps.clock.now().toISOString();
    await trx.updateTable('cash_slips').set({ status: 'used', updated_at: now }).where('id', '=', d.slip_id).where('status', '=', 'under_review').execute();
    const s = await requireTransition(trx, deps, d.session_id, {
      kind: 'payment_confirmed',
      rail: 'cash',
      cause: `cash deposit ${id} approved by ${staff.username}`,
    });
    await recordAudit(trx, deps, actorOf(staff, ip), {
      action: 'deposit.approve',
      targetType: 'cash_deposit',
      targetId: id,
      merchantId: s.merchant_id,
      before: { deposit_status: 'under_review', session_status: 'pending' },
      after: { deposit_status: 'approved', slip_status: 'used', session_status: s.status },
    });
    return findDeposit(trx, id);
  });
}

/** POST /deposits/{id}/reject: the slip is voided and the session is open again (a new slip can be issued). */
export async function rejectDeposit(deps: CashDeskDeps, staff: StaffContext, ip: string, id: string, reason: string): Promise<CashDeposit> {
  return deps.db.transaction().execute(async (trx) => {
    const d = await forReview(trx, staff, id);
    await markReviewed(trx, deps, staff, id, 'rejected', reason);
    const now = deps.clock.now().toISOString();
    await trx.updateTable('cash_slips').set({ status: 'voided', updated_at: now }).where('id', '=', d.slip_id).where('status', '=', 'under_review').execute();
    await applyTransition(trx, deps, d.session_id, { kind: 'confirmation_abandoned', cause: `cash deposit ${id} rejected by ${staff.username}: ${reason}` });
    // A session whose time ran out during the review expires now rather than reopening.
    await expireIfDue(trx, deps, d.session_id);
    const s = await trx.selectFrom('checkout_sessions').select(['status', 'merchant_id']).where('id', '=', d.session_id).executeTakeFirstOrThrow();
    await recordAudit(trx, deps, actorOf(staff, ip), {
      action: 'deposit.reject',
      targetType: 'cash_deposit',
      targetId: id,
      merchantId: s.merchant_id,
      before: { deposit_status: 'under_review', session_status: 'pending' },
      after: { deposit_status: 'rejected', slip_status: 'voided', session_status: s.status, reason },
    });
    return findDeposit(trx, id);
  });
}

type DepositSort = (typeof DEPOSIT_SORTS)[number];
/** Sort keys of GET /deposits → columns (a fixed map: no column name ever comes from the request). */
const DEPOSIT_SORT_COLUMNS = {
  created_at: 'd.created_at',
  amount_minor: 'd.amount_minor',
  status: 'd.status',
  merchant_name: 'm.name',
  slip_reference: 'sl.reference',
  recorded_by: 'rec.username',
  reviewed_by: 'rev.username',
} as const satisfies Record<DepositSort, string>;

/** GET /deposits: supervisors and admins see every deposit; a teller sees the ones they recorded. */
export async function listDeposits(
  db: Db,
  staff: StaffContext,
  filter: {
    status?: DepositStatus | undefined;
    recorded_by?: string | undefined;
    branch_id?: string | undefined;
    from?: string | undefined;
    to?: string | undefined;
    sort?: DepositSort | undefined;
    dir?: 'asc' | 'desc' | undefined;
    limit: number;
    offset: number;
  },
): Promise<DepositList> {
  let q = depositQuery(db);
  if (filter.status) q = q.where('d.status', '=', filter.status);
  if (filter.recorded_by) q = q.where('d.recorded_by', '=', filter.recorded_by);
  if (filter.branch_id) q = q.where('d.branch_id', '=', filter.branch_id);
  if (filter.from) q = q.where('d.created_at', '>=', dayBounds(filter.from).from.toISOString());
  if (filter.to) q = q.where('d.created_at', '<', dayBounds(filter.to).to.toISOString());
  if (staff.role === 'teller') q = q.where('d.recorded_by', '=', staff.id);
  const total = await q.clearSelect().select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  // The review queue is worked oldest first; history reads newest first.
  const dir = filter.dir ?? (filter.status === 'under_review' && !filter.sort ? 'asc' : 'desc');
  let ordered = q.orderBy(DEPOSIT_SORT_COLUMNS[filter.sort ?? 'created_at'], dir);
  if (filter.sort && filter.sort !== 'created_at') ordered = ordered.orderBy('d.created_at', 'desc');
  const rows = await ordered.orderBy('d.id').limit(filter.limit).offset(filter.offset).execute();
  return { deposits: rows.map(toDeposit), total: Number(total.n) };
}

export async function getDeposit(db: Db, staff: StaffContext, id: string): Promise<CashDeposit> {
  const d = await findDeposit(db, id);
  if (staff.role === 'teller' && d.recorded_by.id !== staff.id) throw notFound(`deposit ${id}`);
  return d;
}

/** GET /deposits/facets: who and where deposits were recorded, for the review queue's filters. */
export async function depositFacets(db: Db, staff: StaffContext): Promise<DepositFacets> {
  let tellers = db.selectFrom('cash_deposits as d').innerJoin('staff_users as u', 'u.id', 'd.recorded_by').select(['u.id', 'u.username']).distinct();
  if (staff.role === 'teller') tellers = tellers.where('d.recorded_by', '=', staff.id);
  const branches = await db
    .selectFrom('cash_deposits as d')
    .innerJoin('branches as br', 'br.id', 'd.branch_id')
    .innerJoin('banks as bk', 'bk.id', 'br.bank_id')
    .select(['br.id', 'br.name', 'bk.name as bank_name'])
    .distinct()
    .orderBy('bk.name')
    .orderBy('br.name')
    .execute();
  return {
    tellers: (await tellers.orderBy('u.username').execute()).map((u) => ({ id: u.id, username: u.username })),
    branches: branches.map((b) => ({ id: b.id, name: `${b.bank_name}, ${b.name}` })),
  };
}

/**
 * GET /cash-desk/shift-total: the signed-in teller's cash-up for one day of the server's time
 * zone (today by the injected clock unless `date` is given): count and sum by review state.
 */
export async function shiftTotal(deps: CashDeskDeps, staff: StaffContext, date?: string): Promise<ShiftTotal> {
  const now = deps.clock.now();
  const day = date ?? localDay(now);
  const { from, to } = dayBounds(day);
  const rows = await deps.db
    .selectFrom('cash_deposits')
    .select((eb) => ['status', 'currency', eb.fn.countAll<number>().as('count'), eb.fn.sum<number>('amount_minor').as('amount_minor')])
    .where('recorded_by', '=', staff.id)
    .where('created_at', '>=', from.toISOString())
    .where('created_at', '<', to.toISOString())
    .groupBy(['status', 'currency'])
    .orderBy('currency')
    .orderBy('status')
    .execute();
  const byStatus = rows.map((r) => ({ status: r.status, currency: r.currency, count: Number(r.count), amount_minor: Number(r.amount_minor) }));
  const totals = new Map<string, { currency: string; count: number; amount_minor: number }>();
  for (const r of byStatus) {
    const t = totals.get(r.currency) ?? { currency: r.currency, count: 0, amount_minor: 0 };
    t.count += r.count;
    t.amount_minor += r.amount_minor;
    totals.set(r.currency, t);
  }
  return {
    date: day,
    time_zone: serverTimeZone(),
    from: from.toISOString(),
    to: to.toISOString(),
    teller: { id: staff.id, username: staff.username },
    by_status: byStatus,
    totals: [...totals.values()],
    generated_at: now.toISOString(),
  };
}
