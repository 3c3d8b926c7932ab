import { AppError, notFound } from '../../lib/errors';
import { endTransferWindowIfDue } from '../../domain/bank-transfer-window';
import { loadFresh, notPayable, type PaymentsDeps } from './rails';
import { applyOutcome, statusBody } from './attempts';
import { recordAudit, type Actor } from '../audit';
import { expireDue } from '../../domain/session-transitions';

/**
 * The sandbox bank's notification that a transfer arrived. It pays the session while the
 * attempt's transfer window is open (the session is `pending` meanwhile, and no other payment
 * could start). A wrong amount is rejected as a real collection account would (the transfer is
 * returned; the session keeps waiting). After the window the attempt is expired and the
 * transfer refused (409 STATE_CONFLICT), the window's end applied first in a transaction of
 * its own so the refusal cannot roll it back. Given a staff `actor` (the back office's sandbox
 * route), the audit row is written in the transaction of the confirmation.
 */
export async function confirmBankTransfer(deps: PaymentsDeps, paymentReference: string, amountMinor: number, actor?: Actor) {
  const target = await deps.db.selectFrom('payment_attempts').select(['id', 'session_id']).where('payment_reference', '=', paymentReference).executeTakeFirst();
  if (target) {
    await deps.db.transaction().execute((trx) => endTransferWindowIfDue(trx, deps, target.id));
    await expireDue(deps, target.session_id);
  }
  return deps.db.transaction().execute(async (trx) => {
    const a = await trx.selectFrom('payment_attempts').selectAll().where('payment_reference', '=', paymentReference).executeTakeFirst();
    if (!a) throw notFound(`bank transfer with payment reference ${paymentReference}`);
    if (a.status !== 'pending') {
      const why = a.raw_status === 'TRANSFER_WINDOW_ENDED' ? ' (its transfer window ended)' : '';
      throw new AppError('STATE_CONFLICT', `bank transfer ${paymentReference} is ${a.status}${why}, not awaiting a transfer; the transfer is returned`);
    }
    const s = await loadFresh(trx, deps, a.session_id);
    // The sandbox bank's notification: a live transfer is confirmed by the real bank only.
    if (s.mode !== 'test') throw notFound(`bank transfer with payment reference ${paymentReference}`);
    if (s.status !== 'pending' && s.status !== 'open') throw notPayable(s.status);
    if (amountMinor !== a.amount_charged_minor) {
      throw new AppError(
        'PAYMENT_AMOUNT_MISMATCH',
        `amount_minor: transfer of ${amountMinor} does not match the expected ${a.amount_charged_minor}; the transfer is returned and the session stays payable`,
      );
    }
    if (!(await applyOutcome(trx, deps, a, { status: 'succeeded', rawStatus: 'TRANSFER_RECEIVED' }, `${a.rail} attempt ${a.id} transfer received`))) {
      throw new AppError('STATE_CONFLICT', 'payment attempt is no longer pending; fetch its status');
    }
    const result = await statusBody(trx, deps, a.session_id, a.id, false);
    if (actor) {
      await recordAudit(trx, deps, actor, {
        action: 'sandbox.bank_transfer_confirm',
        targetType: 'payment_attempt',
        targetId: result.attempt_reference,
        after: { payment_reference: paymentReference, amount_minor: amountMinor, currency: a.currency, session_status: result.session_status },
      });
    }
    return result;
  });
}
