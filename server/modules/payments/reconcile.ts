import { AppError } from '../../lib/errors';
import { IN_FLIGHT } from '../../providers/types';
import type { PaymentsDeps } from './rails';
import { attemptStatus } from './attempts';

/** How long an approval may wait for the provider's callback before the server asks the provider itself. */
export const RECONCILE_AFTER_SECONDS = 120;

/**
 * Provider reconciliation, run by the server's sweeper: an attempt whose approval the provider
 * accepted but never confirmed (no callback, `AWAITING_CALLBACK`), or whose provider call never
 * answered (a timeout or a crash: INITIATING, AUTHORIZING, CHARGING), is refreshed from the
 * provider once it has waited RECONCILE_AFTER_SECONDS, so a payer who closed the page still
 * gets a final session. A provider that is down is asked again on the next sweep.
 * Returns how many attempts reached a final status.
 */
export async function reconcileStuckAttempts(deps: PaymentsDeps): Promise<number> {
  const cutoff = new Date(deps.clock.now().getTime() - RECONCILE_AFTER_SECONDS * 1000).toISOString();
  const stuck = await deps.db
    .selectFrom('payment_attempts')
    .select(['id', 'session_id'])
    .where('status', '=', 'pending')
    .where('raw_status', 'in', ['AWAITING_CALLBACK', ...Object.values(IN_FLIGHT)])
    .where('updated_at', '<=', cutoff)
    .limit(100)
    .execute();
  let settled = 0;
  for (const a of stuck) {
    try {
      if ((await attemptStatus(deps, a.session_id, a.id, true)).status !== 'pending') settled++;
    } catch (err) {
      if (!(err instanceof AppError)) throw err; // provider unavailable or the attempt moved meanwhile: next sweep
    }
  }
  return settled;
}

