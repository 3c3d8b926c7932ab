import { sql, type Transaction } from 'kysely';
import type { Db } from '../../db/database';
import type { CashDepositsTable, Database } from '../../db/schema';
import { applyTransition, expireIfDue, requireTransition, type TransitionDeps } from '../../domain/session-transitions';
import * as depositState from '../../domain/deposit-transitions';
import { submitSlip, useSlip, voidSlip } from '../../domain/slip-transitions';
import { AppError, invalid, notFound } from '../../lib/errors';
import type { Rail } from '../../../shared/schemas/common';
import { findSession, slipBody } from '../payments';
import type { CashDeposit, DepositResult, ScannedSlip } from '../../../shared/schemas/backoffice';
import { actorOf, recordAudit } from '../audit';
import type { StaffContext } from '../auth';
import { depositQuery, findDeposit, findSlip, toDeposit } from './cash.repository';
import { localDay } from '../../lib/local-day';
import { requireDrawerOpen } from './cash-up';

/**
 * The teller cash desk and the supervisor's review (maker-checker). Every move is a
 * conditional update (`… WHERE status = 'active'` / `'under_review'`) inside one transaction
 * together with the session transition, so two tellers recording the same slip, or two
 * supervisors approving the same deposit, cannot both win: the loser gets 409 STATE_CONFLICT
 * and exactly one transition and one event are written.
 */
export type CashDeskDeps = TransitionDeps & { db: Db };

type Q = Db | Transaction<Database>;

async function scanned(q: Q, deps: CashDeskDeps, slipId: string): Promise<ScannedSlip> {
  const slip = await q.selectFrom('cash_slips').selectAll().where('id', '=', slipId).executeTakeFirstOrThrow();
  const s = await findSession(q, slip.session_id);
  const latest = await depositQuery(q).where('d.slip_id', '=', slip.id).orderBy('d.created_at', 'desc').orderBy(sql`d.rowid`, 'desc').executeTakeFirst();
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
  // One transaction: the slip, its session and its latest deposit as of one moment (a teller
  // recording or a supervisor approving at the same time never shows half of it).
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
  // A deposit belongs to a counter: its branch numbers the receipt and its bank decides who may
  // review it. A teller an administrator has not placed at a branch records nothing yet.
  if (!staff.branchId) {
    throw new AppError('BRANCH_REQUIRED', 'your account has no branch, so it cannot record deposits; ask an administrator to assign you one');
  }
  return deps.db.transaction().execute(async (trx) => {
    const slip = await findSlip(trx, tokenOrReference);
    await expireIfDue(trx, deps, slip.session_id);
    const s = await findSession(trx, slip.session_id);
    const now = deps.clock.now().toISOString();
    await requireDrawerOpen(trx, staff.id, localDay(deps.clock.now()), slip.currency);
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
    let prefix = 'DESK';
    if (branchId) {
      const branch = await trx
        .selectFrom('branches as br')
        .innerJoin('banks as bk', 'bk.id', 'br.bank_id')
        .select(['br.id', 'br.bank_id', 'br.code', 'bk.code as bank_code'])
        .where('br.id', '=', branchId)
        .where('br.active', '=', 1)
        .where('bk.active', '=', 1)
        .executeTakeFirst();
      if (!branch) throw invalid('branch_id', `no active branch ${branchId}`);
      const own = await bankOfBranch(trx, staff.branchId);
      if (own !== null && own !== branch.bank_id) throw new AppError('FORBIDDEN', 'branch_id: a teller records deposits only at branches of their own bank');
      prefix = `${branch.bank_code}-${branch.code}`;
    }
    if (!(await submitSlip(trx, slip.id, now))) throw new AppError('STATE_CONFLICT', `slip ${slip.reference} was recorded by someone else meanwhile`);
    const row: CashDepositsTable & { status: 'under_review' } = {
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
      receipt_no: await nextReceiptNo(trx, prefix, now),
    };
    await depositState.recordDeposit(trx, row);
    await requireTransition(trx, deps, s.id, { kind: 'begin_confirmation', cause: `cash deposit ${row.id} recorded by ${staff.username}; awaiting supervisor review` });
    await recordAudit(trx, deps, actorOf(staff, ip), {
      action: 'deposit.record',
      targetType: 'cash_deposit',
      targetId: row.id,
      merchantId: s.merchant_id,
      before: { slip_status: 'active', session_status: 'open' },
      after: { deposit_status: 'under_review', slip_status: 'under_review', session_status: 'pending', amount_minor: row.amount_minor, currency: row.currency, slip_reference: slip.reference },
    });
    return { deposit: await findDeposit(trx, row.id), slip: await scanned(trx, deps, slip.id) };
  });
}

/**
 * The bank a branch belongs to (null without a branch). Banks are separate trust domains: staff
 * bound to a branch act only on cash of their own bank (docs/security.md). Staff bound to no
 * branch are not a bank's, and are not limited by one.
 */
async function bankOfBranch(trx: Transaction<Database>, branchId: string | null): Promise<string | null> {
  if (!branchId) return null;
  const row = await trx.selectFrom('branches').select('bank_id').where('id', '=', branchId).executeTakeFirst();
  return row?.bank_id ?? null;
}

/**
 * Loads a deposit for review, enforcing maker-checker (the recorder never reviews their own)
 * and the bank: a supervisor of one bank never reviews a deposit made at another bank's branch
 * (or, without a branch, recorded by another bank's teller).
 */
async function forReview(trx: Transaction<Database>, staff: StaffContext, id: string) {
  const d = await trx.selectFrom('cash_deposits').selectAll().where('id', '=', id).executeTakeFirst();
  if (!d) throw notFound(`deposit ${id}`);
  if (d.recorded_by === staff.id) throw new AppError('FORBIDDEN', 'maker-checker: the staff member who recorded a deposit may not review it; ask another supervisor');
  const own = await bankOfBranch(trx, staff.branchId);
  if (own !== null) {
    const recorder = d.branch_id ? null : await trx.selectFrom('staff_users').select('branch_id').where('id', '=', d.recorded_by).executeTakeFirst();
    const theirs = await bankOfBranch(trx, d.branch_id ?? recorder?.branch_id ?? null);
    if (theirs !== null && theirs !== own) throw new AppError('FORBIDDEN', "a supervisor reviews only deposits made at their own bank's branches");
  }
  return d;
}

/** A lost review race (the deposit was decided by someone else meanwhile) is 409 STATE_CONFLICT. */
async function requireReviewWon(trx: Transaction<Database>, id: string, won: boolean): Promise<void> {
  if (!won) {
    const current = await trx.selectFrom('cash_deposits').select('status').where('id', '=', id).executeTakeFirstOrThrow();
    throw new AppError('STATE_CONFLICT', `deposit ${id} is already ${current.status}; it was reviewed by someone else`);
  }
}

/** POST /deposits/{id}/approve: the cash is confirmed, the session succeeds and checkout.session.completed is emitted. */
export async function approveDeposit(deps: CashDeskDeps, staff: StaffContext, ip: string, id: string): Promise<CashDeposit> {
  return deps.db.transaction().execute(async (trx) => {
    const d = await forReview(trx, staff, id);
    const now = deps.clock.now().toISOString();
    await requireReviewWon(trx, id, await depositState.approveDeposit(trx, id, staff.id, now));
    await useSlip(trx, d.slip_id, now);
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
    const now = deps.clock.now().toISOString();
    await requireReviewWon(trx, id, await depositState.rejectDeposit(trx, id, staff.id, reason, now));
    await voidSlip(trx, d.slip_id, now);
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


/**
 * The next receipt number of a branch's day: `{bank code}-{branch code}-{YYYYMMDD}-{NNNN}` (UTC
 * day; `DESK-…` numbers deposits recorded before a teller needed a branch), one more than the day's highest at that prefix, read in the
 * recording transaction (serialised on SQLite; on PostgreSQL two racing tellers meet on the
 * unique index or as a serialization failure, and the loser is retried).
 */
async function nextReceiptNo(trx: Q, prefix: string, nowIso: string): Promise<string> {
  const head = `${prefix.toUpperCase().replace(/[^A-Z0-9-]/g, '')}-${nowIso.slice(0, 10).replace(/-/g, '')}-`;
  const last = await trx
    .selectFrom('cash_deposits')
    .select('receipt_no')
    .where('receipt_no', '>=', head)
    .where('receipt_no', '<', `${head}~`)
    .orderBy('receipt_no', 'desc')
    .limit(1)
    .executeTakeFirst();
  const n = last?.receipt_no ? Number(last.receipt_no.slice(head.length)) + 1 : 1;
  return `${head}${String(n).padStart(4, '0')}`;
}
