import type { CashSlipsTable } from '../../db/schema';
import type { CashDepositSlipResponse } from '../../../shared/schemas/checkout';
import type { SessionWithOwner } from './payments.repository';

/** A slip as the payer and the teller see it (CashDepositSlipResponse). */
export function slipBody(slip: CashSlipsTable, s: SessionWithOwner, replayed: boolean, now: Date): CashDepositSlipResponse {
  return {
    slip_token: slip.token,
    reference: slip.reference,
    amount_minor: slip.amount_minor,
    currency: slip.currency,
    merchant_name: s.merchant_name,
    session_reference: s.id,
    invoice_ref: s.invoice_ref,
    description: s.description ?? '',
    customer_name: s.customer_name ?? '',
    status: slip.status,
    expires_at: slip.expires_at,
    replayed,
    can_record: slip.status === 'active' && s.status === 'open' && slip.expires_at > now.toISOString(),
  };
}
