import { invalid } from '../lib/errors';
import { randomBase62 } from '../lib/ids';
import { unconfirmedCall, type ChargeInput, type ChargeResult, type RailProvider } from './types';

/**
 * Card payments in test mode (`card_collection_mode: test_simulation`). The card number and
 * security code are checked in memory and dropped: only the brand and last four digits are
 * kept, never the number or the code (not in the database, a log, an error or a webhook).
 */
export const CARD_TEST_NUMBERS: Record<string, { outcome: 'succeeded' | 'declined'; reason: string | null; label: string }> = {
  '4242424242424242': { outcome: 'succeeded', reason: null, label: 'Visa, approved' },
  '5555555555554444': { outcome: 'succeeded', reason: null, label: 'Mastercard, approved' },
  '4000000000000002': { outcome: 'declined', reason: 'card_declined', label: 'Visa, declined (generic)' },
  '4000000000009995': { outcome: 'declined', reason: 'insufficient_funds', label: 'Visa, declined: insufficient funds' },
  '4000000000000069': { outcome: 'declined', reason: 'expired_card', label: 'Visa, declined: expired card' },
};

export function luhnValid(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

export function cardBrand(digits: string): string {
  if (/^4/.test(digits)) return 'visa';
  if (/^(5[1-5]|2[2-7])/.test(digits)) return 'mastercard';
  if (/^3[47]/.test(digits)) return 'amex';
  if (/^(506[01]|507[89]|6500)/.test(digits)) return 'verve';
  return 'unknown';
}

export type CardDecision =
  | { ok: true; outcome: 'succeeded' | 'declined'; reason: string | null; brand: string; last4: string }
  | { ok: false; field: 'card_number' | 'expiry_month'; message: string };

/** Decides a sandbox card payment. Unknown (non-test) numbers are refused: test mode takes test cards only. */
export function decideSandboxCard(cardNumber: string, expiryMonth: number, expiryYear: number, now: Date): CardDecision {
  if (!luhnValid(cardNumber)) return { ok: false, field: 'card_number', message: 'is not a valid card number' };
  const test = CARD_TEST_NUMBERS[cardNumber];
  if (!test) return { ok: false, field: 'card_number', message: 'test mode accepts only the sandbox test cards listed in docs/sandbox.md' };
  const brand = cardBrand(cardNumber);
  const last4 = cardNumber.slice(-4);
  const endOfExpiryMonth = Date.UTC(expiryYear, expiryMonth, 1);
  if (endOfExpiryMonth <= now.getTime()) return { ok: true, outcome: 'declined', reason: 'expired_card', brand, last4 };
  return { ok: true, outcome: test.outcome, reason: test.reason, brand, last4 };
}

/** The card rail in test simulation, behind the same interface as the other rails. */
export const sandboxCard: RailProvider = {
  rail: 'card',
  name: 'sandbox_card',
  async charge(input: ChargeInput): Promise<ChargeResult> {
    const decision = decideSandboxCard(input.cardNumber, input.expiryMonth, input.expiryYear, input.now);
    if (!decision.ok) throw invalid(decision.field, decision.message);
    return {
      providerReference: `CH-${randomBase62(14)}`,
      status: decision.outcome,
      rawStatus: decision.outcome === 'succeeded' ? 'APPROVED' : `DECLINED:${(decision.reason ?? 'declined').toUpperCase()}`,
      declineReason: decision.reason,
      brand: decision.brand,
      last4: decision.last4,
    };
  },
  async refresh(attempt) {
    return unconfirmedCall(attempt) ?? { status: attempt.status, rawStatus: attempt.raw_status, declineReason: attempt.decline_reason };
  },
};
