import type { Db } from '../db/database';
import type { Transaction } from 'kysely';
import type { Database } from '../db/schema';
import { DEFAULT_BANK_TRANSFER_WINDOW_S } from '../config';
import { applyTransition, expireIfDue, type TransitionDeps } from './session-transitions';
import { expireAttempt } from './attempt-transitions';
import { drain } from '../jobs/batches';


/**
 * The bank-transfer window (docs/lifecycle.md): issuing transfer instructions makes the session
 * `pending` until `prompt_expires_at` of the attempt (BANK_TRANSFER_WINDOW_S after issue). A
 * transfer confirmed inside it pays the session; when it ends with none, the attempt expires
 * (`TRANSFER_WINDOW_ENDED`) and the session goes back to `open`, or on to `expired` with its
 * event when its own `expires_at` passed meanwhile.
 */
export const transferWindowEnd = (deps: { config?: { bankTransferWindowS: number } }, now: Date): string =>
  new Date(now.getTime() + (deps.config?.bankTransferWindowS ?? DEFAULT_BANK_TRANSFER_WINDOW_S) * 1000).toISOString();

type Trx = Transaction<Database>;

/** Ends the window of this bank-transfer attempt if it is still pending and its time passed; true when it did. */
export async function endTransferWindowIfDue(trx: Trx, deps: TransitionDeps, attemptId: string): Promise<boolean> {
  const now = deps.clock.now().toISOString();
  const a = await trx.selectFrom('payment_attempts').select(['session_id', 'prompt_expires_at']).where('id', '=', attemptId).where('rail', '=', 'bank_transfer').executeTakeFirst();
  if (!a || a.prompt_expires_at === null || a.prompt_expires_at > now) return false;
  if (!(await expireAttempt(trx, attemptId, 'TRANSFER_WINDOW_ENDED', 'transfer_window_ended', now))) return false;
  await applyTransition(trx, deps, a.session_id, { kind: 'confirmation_abandoned', cause: `bank transfer attempt ${attemptId} window ended without a transfer` });
  await expireIfDue(trx, deps, a.session_id);
  return true;
}

/** Pending bank-transfer attempts whose window ended at `now`: a range of payment_attempts_pending (prompt_expires_at) WHERE status = 'pending' AND prompt_expires_at IS NOT NULL, the due rows only. */
export const dueTransferWindows = (db: Db, now: string) =>
  db.selectFrom('payment_attempts').where('status', '=', 'pending').where('prompt_expires_at', '<=', now).where('rail', '=', 'bank_transfer');

/** The sweeper's part: every pending bank-transfer attempt whose window ended, in indexed batches until `deadline` (performance.now()). */
export async function endDueTransferWindows(db: Db, deps: TransitionDeps, deadline = Number.POSITIVE_INFINITY): Promise<number> {
  const now = deps.clock.now().toISOString();
  return drain(
    deadline,
    (limit) => dueTransferWindows(db, now).select('id').limit(limit).execute(),
    (a) => db.transaction().execute((trx) => endTransferWindowIfDue(trx, deps, a.id)),
  );
}
