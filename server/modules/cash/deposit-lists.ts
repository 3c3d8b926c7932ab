import type { Db } from '../../db/database';
import { notFound } from '../../lib/errors';
import { dayBounds, localDay, serverTimeZone } from '../../lib/local-day';
import type { CashDeposit, DEPOSIT_SORTS, DepositFacets, DepositList, DepositStatus, ShiftTotal } from '../../../shared/schemas/backoffice';
import type { StaffContext } from '../auth/staff-auth';
import { depositQuery, findDeposit, toDeposit } from './cash.repository';
import type { CashDeskDeps } from './cash.service';

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
  const conds: Array<['d.status' | 'd.recorded_by' | 'd.branch_id' | 'd.created_at', '=' | '>=' | '<', string]> = [];
  if (filter.status) conds.push(['d.status', '=', filter.status]);
  if (filter.recorded_by) conds.push(['d.recorded_by', '=', filter.recorded_by]);
  if (filter.branch_id) conds.push(['d.branch_id', '=', filter.branch_id]);
  if (filter.from) conds.push(['d.created_at', '>=', dayBounds(filter.from).from.toISOString()]);
  if (filter.to) conds.push(['d.created_at', '<', dayBounds(filter.to).to.toISOString()]);
  if (staff.role === 'teller') conds.push(['d.recorded_by', '=', staff.id]);
  let q = depositQuery(db);
  // Counted on cash_deposits alone: every join of depositQuery follows a NOT NULL foreign key (or
  // is a left join), so it never drops a row, and the count can run on an index (issue 18).
  let count = db.selectFrom('cash_deposits as d').select((eb) => eb.fn.countAll<number>().as('n'));
  for (const [column, op, value] of conds) {
    q = q.where(column, op, value);
    count = count.where(column, op, value);
  }
  const total = await count.executeTakeFirstOrThrow();
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
