import type { CashSlipsTable } from '../../db/schema';
import { AppError } from '../../lib/errors';
import { issueSlip, replaceSlip } from '../../domain/slip-transitions';
import { newSlipReference, slipReferenceKey } from '../../lib/slip-reference';
import type { CashDepositSlipResponse } from '../../../shared/schemas/checkout';
import { loadFresh, notPayable, quoteRail, requireRail, slipBody, type PaymentsDeps } from '../payments';
import { expireDue } from '../../domain/session-transitions';

/**
 * Issues the session's deposit slip. One payable slip per open session (also enforced by a
 * unique index); a retry returns it with `replayed: true`. The slip lives as long as the
 * session (expires_at equals the session's).
 */
export async function createCashSlip(deps: PaymentsDeps, sessionId: string, amountMinor: number): Promise<{ status: 200 | 201; body: CashDepositSlipResponse }> {
  await expireDue(deps, sessionId);
  return deps.db.transaction().execute(async (trx) => {
    const s = await loadFresh(trx, deps, sessionId);
    requireRail(deps, s, 'cash');
    if (s.status !== 'open') throw notPayable(s.status);
    const quote = await quoteRail(trx, s, 'cash');
    if (amountMinor !== quote.total_minor) {
      throw new AppError('PAYMENT_AMOUNT_MISMATCH', `amount_minor: ${amountMinor} differs from the current cash total ${quote.total_minor}; refresh the quote`);
    }
    const now = deps.clock.now();
    const nowIso = now.toISOString();
    const live = await trx
      .selectFrom('cash_slips')
      .selectAll()
      .where('session_id', '=', s.id)
      .where('status', 'in', ['active', 'under_review'])
      .executeTakeFirst();
    if (live && live.expires_at > nowIso) return { status: 200 as const, body: slipBody(live, s, true, now) };
    if (live) await replaceSlip(trx, live.id, nowIso);
    // Unique on the typed-lookup key, which also covers the references of the older alphabet.
    let reference = newSlipReference();
    while (await trx.selectFrom('cash_slips').select('id').where('reference_key', '=', slipReferenceKey(reference)).executeTakeFirst()) reference = newSlipReference();
    const slip: CashSlipsTable & { status: 'active' } = {
      id: deps.ids.uuid(),
      token: deps.ids.token('slp', 32),
      reference,
      reference_key: slipReferenceKey(reference),
      session_id: s.id,
      amount_minor: quote.total_minor,
      base_minor: s.amount_minor,
      fee_minor: quote.fee_minor,
      currency: s.currency,
      status: 'active',
      expires_at: s.expires_at,
      created_at: nowIso,
      updated_at: nowIso,
    };
    await issueSlip(trx, slip);
    return { status: 201 as const, body: slipBody(slip, s, false, now) };
  });
}
