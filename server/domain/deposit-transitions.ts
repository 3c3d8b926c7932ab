import type { Transaction } from 'kysely';
import type { CashDepositsTable, Database } from '../db/schema';

/**
 * The cash deposit state machine (maker-checker review). A review is a conditional update
 * (`… WHERE status = 'under_review'`) inside the caller's transaction and returns whether it
 * won, so two supervisors reviewing one deposit cannot both decide it; the caller moves the
 * slip (slip-transitions.ts), the session and writes the audit row in the same transaction.
 *
 *   (none)       → under_review  a teller recorded the counted cash (recordDeposit)
 *   under_review → approved      approveDeposit
 *   under_review → rejected      rejectDeposit (with the reviewer's reason)
 */
type Trx = Transaction<Database>;

/** (none) → under_review. */
export async function recordDeposit(trx: Trx, row: CashDepositsTable & { status: 'under_review' }): Promise<void> {
  await trx.insertInto('cash_deposits').values(row).execute();
}

async function review(trx: Trx, depositId: string, status: 'approved' | 'rejected', reviewerId: string, reason: string | null, now: string): Promise<boolean> {
  const r = await trx
    .updateTable('cash_deposits')
    .set({ status, reviewed_by: reviewerId, reviewed_at: now, review_reason: reason })
    .where('id', '=', depositId)
    .where('status', '=', 'under_review')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** under_review → approved. */
export const approveDeposit = (trx: Trx, depositId: string, reviewerId: string, now: string): Promise<boolean> => review(trx, depositId, 'approved', reviewerId, null, now);

/** under_review → rejected. */
export const rejectDeposit = (trx: Trx, depositId: string, reviewerId: string, reason: string, now: string): Promise<boolean> =>
  review(trx, depositId, 'rejected', reviewerId, reason, now);
