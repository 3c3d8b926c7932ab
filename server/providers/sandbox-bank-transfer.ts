import { randomBase62 } from '../lib/ids';
import { unconfirmedCall, type InitiateInput, type InitiateResult, type RailProvider } from './types';

/** The sandbox collection account payers transfer to. */
const SANDBOX_COLLECTION_ACCOUNT = {
  bank_name: 'Paydesk Sandbox Bank',
  bank_code: 'PDSB',
  account_number: '1441000012345',
} as const;

/** What the payer needs to make the transfer; shown again whenever the attempt is re-read. */
export function bankTransferInstructions(t: { merchantName: string; paymentReference: string | null; chargeMinor: number; currency: string; expiresAt: string }) {
  return {
    mode: 'bank_transfer_instructions',
    rail: 'bank_transfer' as const,
    ...SANDBOX_COLLECTION_ACCOUNT,
    account_name: `Paydesk / ${t.merchantName}`.slice(0, 120),
    payment_reference: t.paymentReference,
    amount_minor: t.chargeMinor,
    currency: t.currency,
    expires_at: t.expiresAt,
  };
}

/**
 * Bank transfer: the payer receives instructions (account, a unique payment reference,
 * amount, expiry); the transfer is confirmed later by the bank's notification, which the
 * sandbox models as an operator action (`npm run admin -- sandbox:bank-transfer`, or the
 * back office). Nothing moves until then.
 */
export const sandboxBankTransfer: RailProvider = {
  rail: 'bank_transfer',
  name: 'sandbox_bank_transfer',
  async initiate(_input: InitiateInput): Promise<InitiateResult> {
    const paymentReference = `PDT${randomBase62(9).toUpperCase()}`;
    return {
      provider: 'sandbox_bank_transfer',
      providerReference: `BT-${randomBase62(14)}`,
      scenario: 'normal',
      status: 'pending',
      rawStatus: 'AWAITING_TRANSFER',
      paymentReference,
      promptExpiresAt: null,
    };
  },
  async refresh(attempt) {
    const unconfirmed = unconfirmedCall(attempt);
    if (unconfirmed) return unconfirmed;
    return { status: attempt.status, rawStatus: attempt.raw_status, declineReason: attempt.decline_reason };
  },
};
