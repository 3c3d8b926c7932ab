import type { Db } from '../../db/database';
import { invalid, notFound } from '../../lib/errors';
import { boundedTotal } from '../../lib/list-total';
import { afterCursor, decodeCursor, encodeCursor } from '../../http/paging';
import { dayBounds, localDay, serverTimeZone } from '../../lib/local-day';
import type { CashDeposit, DEPOSIT_SORTS, DepositFacets, DepositList, DepositStatus, ShiftTotal } from '../../../shared/schemas/backoffice';
import type { StaffContext } from '../auth';
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

/**
 * GET /deposits: supervisors and admins see every deposit; a teller sees the ones they recorded.
 * `total` counts at most `cap` deposits (server/lib/list-total.ts). In `created_at` order (the
 * default) pages go by cursor: the next page starts after the last row's (created_at, id), an
 * index walk on `cash_deposits_created` whatever the depth; `offset` still works and reads every
 * row it skips. Other sorts page by offset only.
 */
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
    cursor?: string | undefined;
  },
  cap: number,
): Promise<DepositList> {
  const conds: Array<['d.status' | 'd.recorded_by' | 'd.branch_id' | 'd.created_at', '=' | '>=' | '<', string]> = [];
  if (filter.status) conds.push(['d.status', '=', filter.status]);
  if (filter.recorded_by) conds.push(['d.recorded_by', '=', filter.recorded_by]);
  if (filter.branch_id) conds.push(['d.branch_id', '=', filter.branch_id]);
  if (filter.from) conds.push(['d.created_at', '>=', dayBounds(filter.from).from.toISOString()]);
  if (filter.to) conds.push(['d.created_at', '<', dayBounds(filter.to).to.toISOString()]);
  if (staff.role === 'teller') conds.push(['d.recorded_by', '=', staff.id]);
  // Counted, and paged in `created_at` order, on cash_deposits alone: every join of depositQuery
  // follows a NOT NULL foreign key (or is a left join), so it never drops a row.
  let own = db.selectFrom('cash_deposits as d');
  for (const [column, op, value] of conds) own = own.where(column, op, value);
  const total = await boundedTotal(db, own, cap);
  // The review queue is worked oldest first; history reads newest first.
  const dir = filter.dir ?? (filter.status === 'under_review' && !filter.sort ? 'asc' : 'desc');
  const sort = filter.sort ?? 'created_at';
  if (sort !== 'created_at') {
    if (filter.cursor) throw invalid('cursor', `pages sort=created_at only; page sort=${sort} with offset`);
    let q = depositQuery(db);
    for (const [column, op, value] of conds) q = q.where(column, op, value);
    const rows = await q.orderBy(DEPOSIT_SORT_COLUMNS[sort], dir).orderBy('d.created_at', 'desc').orderBy('d.id').limit(filter.limit).offset(filter.offset).execute();
    return { deposits: rows.map(toDeposit), ...total, next_cursor: null };
  }
  if (filter.cursor) {
    if (filter.offset > 0) throw invalid('cursor', 'cannot be combined with offset');
    const c = decodeCursor(filter.cursor, 'created_at', dir);
    own = own.where((eb) => afterCursor(eb, 'd.created_at', 'd.id', dir, c));
  }
  // The page's ids first (a walk of cash_deposits_created; an offset skips index entries, not
  // joined rows), then their joins. Ties (same millisecond) follow the id in the same direction.
  // The rows come back in the ids' order (the database's collation orders the ids, not JavaScript).
  const ids = (await own.select('d.id').orderBy('d.created_at', dir).orderBy('d.id', dir).limit(filter.limit + 1).offset(filter.offset).execute()).map((r) => r.id);
  const byId = new Map(ids.length === 0 ? [] : (await depositQuery(db).where('d.id', 'in', ids.slice(0, filter.limit)).execute()).map((r) => [r.id, r]));
  const page = ids.slice(0, filter.limit).flatMap((id) => byId.get(id) ?? []);
  const last = page.at(-1);
  return { deposits: page.map(toDeposit), ...total, next_cursor: ids.length > filter.limit && last ? encodeCursor('created_at', dir, last.created_at, last.id) : null };
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
