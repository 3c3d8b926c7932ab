import type { Transaction } from 'kysely';
import type { Db } from '../db/database';
import type { CashSlipsTable, Database } from '../db/schema';

/**
 * The cash slip state machine. Every move is a conditional update on the slip's status inside
 * the caller's transaction and returns whether it won, so two tellers recording one slip
 * cannot both move it; the caller moves the deposit and the session in the same transaction.
 *
 *   (none)       → active        issued to the payer (issueSlip)
 *   active       → under_review  a teller recorded its deposit (submitSlip)
 *   under_review → used          the deposit was approved (useSlip)
 *   under_review → voided        the deposit was rejected (voidSlip)
 *   active       → voided        the session reached a final status another way (voidSessionSlips)
 *   active       → expired       its time passed (expireDueSlips)
 *   active       → expired       past its time, the payer asks for a new slip (replaceSlip)
 *   under_review → expired       likewise (replaceSlip): the payer's new slip replaces one whose
 *                                deposit was recorded but not yet decided once its time passed
 */
type Trx = Transaction<Database>;

/** (none) → active. */
export async function issueSlip(trx: Trx, slip: CashSlipsTable & { status: 'active' }): Promise<void> {
  await trx.insertInto('cash_slips').values(slip).execute();
}

async function move(trx: Trx, slipId: string, from: CashSlipsTable['status'][], to: CashSlipsTable['status'], now: string): Promise<boolean> {
  const r = await trx.updateTable('cash_slips').set({ status: to, updated_at: now }).where('id', '=', slipId).where('status', 'in', from).executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** active → under_review: false when another teller recorded it first. */
export const submitSlip = (trx: Trx, slipId: string, now: string): Promise<boolean> => move(trx, slipId, ['active'], 'under_review', now);

/** under_review → used. */
export const useSlip = (trx: Trx, slipId: string, now: string): Promise<boolean> => move(trx, slipId, ['under_review'], 'used', now);

/** under_review → voided. */
export const voidSlip = (trx: Trx, slipId: string, now: string): Promise<boolean> => move(trx, slipId, ['under_review'], 'voided', now);

/** active or under_review → expired: a live slip past its time, when the payer asks for a new one (the caller checks the time). */
export const replaceSlip = (trx: Trx, slipId: string, now: string): Promise<boolean> => move(trx, slipId, ['active', 'under_review'], 'expired', now);

/** active → voided for every slip of a session that reached a final status. */
export async function voidSessionSlips(trx: Trx, sessionId: string, now: string): Promise<void> {
  await trx.updateTable('cash_slips').set({ status: 'voided', updated_at: now }).where('session_id', '=', sessionId).where('status', '=', 'active').execute();
}

/** active → expired for these slips, each only if still active and past its time (the sweeper, one batch per statement). */
export async function expireDueSlips(q: Db, ids: readonly string[], now: string): Promise<void> {
  if (ids.length === 0) return;
  await q.updateTable('cash_slips').set({ status: 'expired', updated_at: now }).where('id', 'in', ids).where('status', '=', 'active').where('expires_at', '<=', now).execute();
}
