import { randomBase62 } from '../lib/ids';
import type { InitiateInput, InitiateResult, RailProvider } from './types';

/** The sandbox collection account payers transfer to. */
export const SANDBOX_COLLECTION_ACCOUNT = {
  bank_name: 'Paydesk Sandbox Bank',
  bank_code: 'PDSB',
  account_number: '1441000012345',
} as const;

/**
 * Bank transfer: the payer receives instructions (account, a unique payment reference,
 * amount, expiry); the transfer is confirmed later by the bank's notification, which the
 * sandbox models as an operator action (`npm run admin -- sandbox:bank-transfer`, or the
 * back office). Nothing moves until then.
 */
export const sandboxBankTransfer: RailProvider = {
  rail: 'bank_transfer',
  name: 'sandbox_bank_transfer',
  initiate(input: InitiateInput): InitiateResult {
    const paymentReference = `PDT${randomBase62(9).toUpperCase()}`;
    return {
      provider: 'sandbox_bank_transfer',
      providerReference: `BT-${randomBase62(14)}`,
      scenario: 'normal',
      status: 'pending',
      rawStatus: 'AWAITING_TRANSFER',
      paymentReference,
      promptExpiresAt: null,
      instructions: {
        mode: 'bank_transfer_instructions',
        ...SANDBOX_COLLECTION_ACCOUNT,
        account_name: `Paydesk / ${input.merchantName}`.slice(0, 120),
        payment_reference: paymentReference,
        amount_minor: input.chargeMinor,
        currency: input.currency,
        expires_at: input.sessionExpiresAt,
      },
    };
  },
  refresh(attempt) {
    return { status: attempt.status, rawStatus: attempt.raw_status, declineReason: attempt.decline_reason };
  },
};
