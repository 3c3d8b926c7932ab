import type { Kysely, Selectable, Transaction } from 'kysely';
import type { CashUpsTable, Database } from '../../db/schema';
import { AppError, invalid, notFound } from '../../lib/errors';
import { dayBounds, localDay, serverTimeZone } from '../../lib/local-day';
import { DEFAULT_CURRENCY, MAX_AMOUNT_MINOR } from '../../../shared/schemas/common';
import { countValue, denominationsOf, MAX_PIECES } from '../../../shared/denominations';
import type { CashUp, CashUpDay, CashUpList, CashUpStatus, DenominationCounts } from '../../../shared/schemas/cash-up';
import { actorOf, recordAudit } from '../audit';
import type { StaffContext } from '../auth';
import type { Db } from '../../db/database';
import type { TransitionDeps } from '../../domain/session-transitions';

/** What the cash-up needs: the clock, ids and the database (the cash desk's deps; cash.service imports this file). */
type CashDeskDeps = TransitionDeps & { db: Db };

/**
 * The teller's cash-up: one per teller, business day (the server's time zone) and currency.
 *
 *   open              the teller enters the opening float and counts the drawer, as often as needed;
 *   teller_signed     the teller signed: the count and the day's figures are frozen, and the
 *                     teller records no more deposits in that currency that day;
 *   supervisor_signed a supervisor (never the teller) signed it off, with an optional note.
 *
 * The drawer should hold the float plus the deposits approved and still waiting for review (the
 * cash of a rejected deposit goes back to the payer). Every write is one transaction with its
 * audit entry; the moves are conditional updates, so two sign-offs cannot both win.
 */
type Q = Kysely<Database> | Transaction<Database>;
type Row = Selectable<CashUpsTable>;

interface Teller {
  id: string;
  username: string;
  full_name: string | null;
  branch_name: string | null;
  bank_id: string | null;
}

async function tellerOf(q: Q, id: string): Promise<Teller> {
  const t = await q
    .selectFrom('staff_users as u')
    .leftJoin('branches as br', 'br.id', 'u.branch_id')
    .leftJoin('banks as bk', 'bk.id', 'br.bank_id')
    .select(['u.id', 'u.username', 'u.full_name', 'br.name as branch', 'bk.name as bank', 'br.bank_id'])
    .where('u.id', '=', id)
    .executeTakeFirstOrThrow();
  return { id: t.id, username: t.username, full_name: t.full_name ?? null, branch_name: t.branch ? `${t.bank ?? ''}, ${t.branch}`.replace(/^, /, '') : null, bank_id: t.bank_id ?? null };
}

async function dayDeposits(q: Q, tellerId: string, day: string, currency?: string) {
  const { from, to } = dayBounds(day);
  let query = q
    .selectFrom('cash_deposits as d')
    .innerJoin('cash_slips as sl', 'sl.id', 'd.slip_id')
    .select(['d.id', 'd.receipt_no', 'sl.reference as slip_reference', 'd.created_at', 'd.amount_minor', 'd.status', 'd.currency'])
    .where('d.recorded_by', '=', tellerId)
    .where('d.created_at', '>=', from.toISOString())
    .where('d.created_at', '<', to.toISOString());
  if (currency) query = query.where('d.currency', '=', currency);
  return query.orderBy('d.created_at').orderBy('d.id').execute();
}

const parseCounts = (json: string | null): DenominationCounts | null => (json ? (JSON.parse(json) as DenominationCounts) : null);

async function present(q: Q, teller: Teller, day: string, currency: string, row: Row | undefined, now: Date): Promise<CashUp> {
  const deposits = (await dayDeposits(q, teller.id, day, currency)).map((d) => ({
    id: d.id,
    receipt_no: d.receipt_no ?? null,
    slip_reference: d.slip_reference,
    created_at: d.created_at,
    amount_minor: Number(d.amount_minor),
    status: d.status,
  }));
  const sum = (status: string) => deposits.filter((d) => d.status === status).reduce((a, d) => a + d.amount_minor, 0);
  // Signed: the figures as they were when the teller signed; open: as they are now.
  const frozen = row && row.status !== 'open';
  const approved = frozen ? Number(row.approved_minor) : sum('approved');
  const underReview = frozen ? Number(row.under_review_minor) : sum('under_review');
  const rejected = frozen ? Number(row.rejected_minor) : sum('rejected');
  const float = row?.float_minor == null ? null : { amount_minor: Number(row.float_minor), denominations: parseCounts(row.float_denominations) };
  const expected = frozen ? Number(row.expected_minor) : (float?.amount_minor ?? 0) + approved + underReview;
  const count = row?.counted_minor == null ? null : { counted_minor: Number(row.counted_minor), denominations: parseCounts(row.count_denominations) ?? {} };
  const difference = count ? count.counted_minor - expected : null;
  const supervisor = row?.supervisor_id ? await q.selectFrom('staff_users').select(['id', 'username', 'full_name']).where('id', '=', row.supervisor_id).executeTakeFirst() : undefined;
  return {
    id: row?.id ?? null,
    date: day,
    time_zone: serverTimeZone(),
    currency,
    teller: { id: teller.id, username: teller.username, full_name: teller.full_name },
    branch_name: teller.branch_name,
    status: row?.status ?? 'open',
    denominations: denominationsOf(currency).map((d) => ({ ...d })),
    float,
    count,
    approved_minor: approved,
    under_review_minor: underReview,
    rejected_minor: rejected,
    expected_minor: expected,
    difference_minor: difference,
    outcome: difference === null ? null : difference === 0 ? 'balanced' : difference > 0 ? 'over' : 'short',
    deposits,
    teller_signed_at: row?.teller_signed_at ?? null,
    supervisor: supervisor ? { id: supervisor.id, username: supervisor.username, full_name: supervisor.full_name ?? null } : null,
    supervisor_signed_at: row?.supervisor_signed_at ?? null,
    supervisor_note: row?.supervisor_note ?? null,
    generated_at: now.toISOString(),
  };
}

const rowOf = (q: Q, tellerId: string, day: string, currency: string) =>
  q.selectFrom('cash_ups').selectAll().where('teller_id', '=', tellerId).where('business_day', '=', day).where('currency', '=', currency).executeTakeFirst();

/** The day a teller writes: today by the injected clock unless given; never a day still to come. */
function dayOf(deps: CashDeskDeps, date: string | undefined): string {
  const today = localDay(deps.clock.now());
  const day = date ?? today;
  if (Number.isNaN(dayBounds(day).from.getTime()) || localDay(dayBounds(day).from) !== day) throw invalid('date', `${day} is not a calendar day`);
  if (day > today) throw invalid('date', `${day} is after today (${today}); a cash-up is for today or a day gone by`);
  return day;
}

/** Checks a count against the currency's notes and coins and returns its value. */
function valueOf(field: string, currency: string, counts: DenominationCounts): number {
  const lines = denominationsOf(currency);
  for (const [code, n] of Object.entries(counts)) {
    const d = lines.find((l) => l.code === code);
    if (!d) throw invalid(`${field}.${code}`, `is not a ${currency} note or coin; the lines are ${lines.map((l) => l.code).join(', ')}`);
    if (d.kind !== 'total' && n > MAX_PIECES) throw invalid(`${field}.${code}`, `must be at most ${MAX_PIECES} pieces`);
  }
  const v = countValue(currency, counts);
  if (!v.ok) throw invalid(`${field}.${v.code}`, `is not a ${currency} note or coin`);
  if (v.minor > MAX_AMOUNT_MINOR) throw invalid(field, `adds up to more than ${MAX_AMOUNT_MINOR} minor units`);
  return v.minor;
}

/** Keeps only counted lines (zeros dropped), in the table's order. */
function tidy(currency: string, counts: DenominationCounts): DenominationCounts {
  const out: DenominationCounts = {};
  for (const d of denominationsOf(currency)) if ((counts[d.code] ?? 0) > 0) out[d.code] = counts[d.code]!;
  return out;
}

/** A teller whose cash-up of the day is signed records no more deposits in that currency that day. */
export async function requireDrawerOpen(q: Q, tellerId: string, day: string, currency: string): Promise<void> {
  const row = await rowOf(q, tellerId, day, currency);
  if (row && row.status !== 'open') {
    throw new AppError('STATE_CONFLICT', `your ${currency} cash-up of ${day} is signed: the drawer is closed for the day and no more deposits can be recorded on it`);
  }
}

/** GET /cash-desk/cash-up: the signed-in teller's cash-ups of one day, one per currency they hold or handled. */
export async function tellerDay(deps: CashDeskDeps, staff: StaffContext, date: string | undefined, currency: string | undefined): Promise<CashUpDay> {
  const day = date ?? localDay(deps.clock.now());
  const now = deps.clock.now();
  return deps.db.transaction().execute(async (trx) => {
    const teller = await tellerOf(trx, staff.id);
    const rows = await trx.selectFrom('cash_ups').selectAll().where('teller_id', '=', staff.id).where('business_day', '=', day).execute();
    const currencies = new Set<string>([...rows.map((r) => r.currency), ...(await dayDeposits(trx, staff.id, day)).map((d) => d.currency)]);
    if (currency) currencies.add(currency);
    if (currencies.size === 0) currencies.add(DEFAULT_CURRENCY);
    const cashUps: CashUp[] = [];
    for (const c of [...currencies].sort()) cashUps.push(await present(trx, teller, day, c, rows.find((r) => r.currency === c), now));
    return { date: day, time_zone: serverTimeZone(), teller: { id: teller.id, username: teller.username, full_name: teller.full_name }, cash_ups: cashUps };
  });
}

type Write = { kind: 'float'; amount_minor: number; denominations: DenominationCounts | null } | { kind: 'count'; counted_minor: number; denominations: DenominationCounts };

/** POST /cash-desk/cash-up/float and /count: stores the float or the count of the teller's open cash-up. */
export async function writeCashUp(
  deps: CashDeskDeps,
  staff: StaffContext,
  ip: string,
  input: { currency: string; date?: string | undefined; amount_minor?: number | undefined; denominations?: DenominationCounts | undefined },
  kind: 'float' | 'count',
): Promise<CashUp> {
  const day = dayOf(deps, input.date);
  const currency = input.currency;
  let write: Write;
  if (kind === 'float') {
    write = input.denominations
      ? { kind, amount_minor: valueOf('denominations', currency, input.denominations), denominations: tidy(currency, input.denominations) }
      : { kind, amount_minor: input.amount_minor ?? 0, denominations: null };
  } else {
    write = { kind, counted_minor: valueOf('denominations', currency, input.denominations ?? {}), denominations: tidy(currency, input.denominations ?? {}) };
  }
  const now = deps.clock.now();
  const at = now.toISOString();
  return deps.db.transaction().execute(async (trx) => {
    await trx
      .insertInto('cash_ups')
      .values({
        id: deps.ids.token('cup', 20),
        teller_id: staff.id,
        business_day: day,
        currency,
        status: 'open',
        float_minor: null,
        float_denominations: null,
        counted_minor: null,
        count_denominations: null,
        approved_minor: null,
        under_review_minor: null,
        rejected_minor: null,
        expected_minor: null,
        teller_signed_at: null,
        supervisor_id: null,
        supervisor_signed_at: null,
        supervisor_note: null,
        created_at: at,
        updated_at: at,
      })
      .onConflict((oc) => oc.columns(['teller_id', 'business_day', 'currency']).doNothing())
      .execute();
    const before = (await rowOf(trx, staff.id, day, currency))!;
    const set =
      write.kind === 'float'
        ? { float_minor: write.amount_minor, float_denominations: write.denominations ? JSON.stringify(write.denominations) : null, updated_at: at }
        : { counted_minor: write.counted_minor, count_denominations: JSON.stringify(write.denominations), updated_at: at };
    const res = await trx.updateTable('cash_ups').set(set).where('id', '=', before.id).where('status', '=', 'open').executeTakeFirst();
    if (Number(res.numUpdatedRows) !== 1) throw new AppError('STATE_CONFLICT', `your ${currency} cash-up of ${day} is signed; its ${kind} can no longer change`);
    await recordAudit(trx, deps, actorOf(staff, ip), {
      action: kind === 'float' ? 'cash_up.float' : 'cash_up.count',
      targetType: 'cash_up',
      targetId: before.id,
      before: kind === 'float' ? { float_minor: before.float_minor } : { counted_minor: before.counted_minor },
      after: { business_day: day, currency, ...set, updated_at: undefined },
    });
    const row = (await rowOf(trx, staff.id, day, currency))!;
    return present(trx, await tellerOf(trx, staff.id), day, currency, row, now);
  });
}

/** POST /cash-desk/cash-up/sign: the teller signs their count; it and the day's figures are frozen. */
export async function tellerSign(deps: CashDeskDeps, staff: StaffContext, ip: string, input: { currency: string; date?: string | undefined }): Promise<CashUp> {
  const day = dayOf(deps, input.date);
  const now = deps.clock.now();
  return deps.db.transaction().execute(async (trx) => {
    const row = await rowOf(trx, staff.id, day, input.currency);
    if (!row || row.float_minor == null) throw invalid('float', `enter the opening float of your ${input.currency} cash-up of ${day} before signing`);
    if (row.counted_minor == null) throw invalid('denominations', `count the drawer of your ${input.currency} cash-up of ${day} before signing`);
    if (row.status !== 'open') throw new AppError('STATE_CONFLICT', `your ${input.currency} cash-up of ${day} is already signed`);
    const teller = await tellerOf(trx, staff.id);
    const live = await present(trx, teller, day, input.currency, row, now);
    const res = await trx
      .updateTable('cash_ups')
      .set({
        status: 'teller_signed',
        approved_minor: live.approved_minor,
        under_review_minor: live.under_review_minor,
        rejected_minor: live.rejected_minor,
        expected_minor: live.expected_minor,
        teller_signed_at: now.toISOString(),
        updated_at: now.toISOString(),
      })
      .where('id', '=', row.id)
      .where('status', '=', 'open')
      .executeTakeFirst();
    if (Number(res.numUpdatedRows) !== 1) throw new AppError('STATE_CONFLICT', `your ${input.currency} cash-up of ${day} is already signed`);
    await recordAudit(trx, deps, actorOf(staff, ip), {
      action: 'cash_up.teller_sign',
      targetType: 'cash_up',
      targetId: row.id,
      before: { status: 'open' },
      after: { status: 'teller_signed', business_day: day, currency: input.currency, expected_minor: live.expected_minor, counted_minor: live.count?.counted_minor, difference_minor: live.difference_minor },
    });
    return present(trx, teller, day, input.currency, await rowOf(trx, staff.id, day, input.currency), now);
  });
}

/**
 * Whether a supervisor may see a teller's cash-up: a supervisor bound to a bank's branch sees
 * the cash-ups of that bank's tellers (and of tellers bound to no branch) only.
 */
async function supervisorMay(q: Q, staff: StaffContext, teller: Teller): Promise<boolean> {
  if (staff.role !== 'supervisor' || !staff.branchId) return true;
  const own = await q.selectFrom('branches').select('bank_id').where('id', '=', staff.branchId).executeTakeFirst();
  return !own || teller.bank_id === null || teller.bank_id === own.bank_id;
}

async function load(q: Q, staff: StaffContext, id: string): Promise<{ row: Row; teller: Teller }> {
  const row = await q.selectFrom('cash_ups').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) throw notFound(`cash-up ${id}`);
  const teller = await tellerOf(q, row.teller_id);
  if (staff.role === 'teller' && row.teller_id !== staff.id) throw notFound(`cash-up ${id}`);
  if (!(await supervisorMay(q, staff, teller))) throw notFound(`cash-up ${id}`);
  return { row, teller };
}

/** GET /cash-ups/{id}. */
export async function getCashUp(deps: CashDeskDeps, staff: StaffContext, id: string): Promise<CashUp> {
  return deps.db.transaction().execute(async (trx) => {
    const { row, teller } = await load(trx, staff, id);
    return present(trx, teller, row.business_day, row.currency, row, deps.clock.now());
  });
}

/** GET /cash-ups: the supervisor's list, by default the counts waiting for sign-off, oldest day first. */
export async function listCashUps(deps: CashDeskDeps, staff: StaffContext, query: { status?: CashUpStatus | undefined; date?: string | undefined; limit: number }): Promise<CashUpList> {
  const status = query.status ?? 'teller_signed';
  const now = deps.clock.now();
  return deps.db.transaction().execute(async (trx) => {
    let q = trx.selectFrom('cash_ups').selectAll().where('status', '=', status);
    if (query.date) q = q.where('business_day', '=', query.date);
    const rows = await q.orderBy('business_day', status === 'teller_signed' ? 'asc' : 'desc').orderBy('teller_signed_at').orderBy('id').limit(query.limit).execute();
    const out: CashUp[] = [];
    for (const row of rows) {
      const teller = await tellerOf(trx, row.teller_id);
      if (await supervisorMay(trx, staff, teller)) out.push(await present(trx, teller, row.business_day, row.currency, row, now));
    }
    return { cash_ups: out };
  });
}

/** POST /cash-ups/{id}/sign-off: a supervisor, never the teller who counted, signs the cash-up off. */
export async function supervisorSign(deps: CashDeskDeps, staff: StaffContext, ip: string, id: string, note: string | undefined): Promise<CashUp> {
  const now = deps.clock.now();
  return deps.db.transaction().execute(async (trx) => {
    const { row, teller } = await load(trx, staff, id);
    if (row.teller_id === staff.id) throw new AppError('FORBIDDEN', 'a supervisor cannot sign off their own count; ask another supervisor');
    if (row.status === 'open') throw new AppError('STATE_CONFLICT', `cash-up ${id} is not signed by its teller yet; the teller signs their count first`);
    if (row.status === 'supervisor_signed') throw new AppError('STATE_CONFLICT', `cash-up ${id} is already signed off`);
    const res = await trx
      .updateTable('cash_ups')
      .set({ status: 'supervisor_signed', supervisor_id: staff.id, supervisor_signed_at: now.toISOString(), supervisor_note: note ? note : null, updated_at: now.toISOString() })
      .where('id', '=', id)
      .where('status', '=', 'teller_signed')
      .executeTakeFirst();
    if (Number(res.numUpdatedRows) !== 1) throw new AppError('STATE_CONFLICT', `cash-up ${id} was signed off by someone else meanwhile`);
    await recordAudit(trx, deps, actorOf(staff, ip), {
      action: 'cash_up.supervisor_sign',
      targetType: 'cash_up',
      targetId: id,
      before: { status: 'teller_signed' },
      after: { status: 'supervisor_signed', note: note || null, expected_minor: Number(row.expected_minor), counted_minor: Number(row.counted_minor) },
    });
    const after = await trx.selectFrom('cash_ups').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    return present(trx, teller, after.business_day, after.currency, after, now);
  });
}
