import type { PaymentAttemptsTable } from '../db/schema';
import { MOMO_COUNTRIES, MOMO_SANDBOX_SCENARIOS, type MomoCountry, type MomoCountryCode, type MomoSandboxScenario } from '../../shared/countries';
import { AppError } from '../lib/errors';
import { randomBase62 } from '../lib/ids';
import { IN_FLIGHT, unconfirmedCall, type InitiateInput, type InitiateResult, type ProviderOutcome, type RailProvider } from './types';

/** The verification code that approves a sandbox Mobile Money prompt. */
export const SANDBOX_MOMO_APPROVE_CODE = '123456';
/** How long a payer has to approve a prompt before it expires. */
export const MOMO_PROMPT_TTL_SECONDS = 300;

/** Digits of a number in international form (dialling code first), without + or spaces. */
const internationalDigits = (country: MomoCountry, national: string): string => {
  const digits = national.replace(/\D/g, '');
  return country.dialCode + (digits.startsWith('0') ? digits.slice(1) : digits);
};

/**
 * Sandbox wallets of every country (shared/countries.ts), by their digits in international form
 * (`233240000001`: the server stores numbers in E.164), in the spirit of MTN MoMo's sandbox
 * MSISDNs. Any other valid number behaves normally: code 123456 approves, any other declines.
 */
export const MOMO_TEST_NUMBERS: Record<string, { scenario: MomoSandboxScenario; country: MomoCountryCode }> = Object.fromEntries(
  MOMO_COUNTRIES.flatMap((c) => MOMO_SANDBOX_SCENARIOS.map((scenario) => [internationalDigits(c, c.sandboxNumbers[scenario]), { scenario, country: c.code }])),
);

const OPERATOR_PROVIDER: Record<string, string> = { mtn: 'MTN', telecel: 'TEL', airteltigo: 'ATG', orange: 'OM', moov: 'MOOV', wave: 'WAVE', free: 'FREE', mpesa: 'MPESA', airtel: 'AIRTEL' };

const unavailable = () => new AppError('PROVIDER_RAIL_UNAVAILABLE', 'the Mobile Money provider is temporarily unavailable; retry shortly', { retryAfterSeconds: 30 });

function promptExpired(attempt: PaymentAttemptsTable, now: Date): boolean {
  return attempt.scenario === 'prompt_expired' || (attempt.prompt_expires_at !== null && attempt.prompt_expires_at <= now.toISOString());
}

export const sandboxMomo: RailProvider = {
  rail: 'momo',
  name: 'sandbox_momo',
  async initiate(input: InitiateInput): Promise<InitiateResult> {
    const phone = input.phone ?? '';
    const scenario = MOMO_TEST_NUMBERS[phone.replace(/\D/g, '')]?.scenario ?? 'normal';
    if (scenario === 'wallet_rejected') {
      throw new AppError('PROVIDER_PAYMENT_REJECTED', 'phone: the Mobile Money provider rejected the payment: wallet is not registered for Mobile Money');
    }
    return {
      provider: `sandbox_momo_${input.operator ?? 'mtn'}`,
      providerReference: `${OPERATOR_PROVIDER[input.operator ?? 'mtn'] ?? 'MOMO'}-${randomBase62(14)}`,
      scenario,
      status: 'pending',
      rawStatus: 'PROMPT_SENT',
      promptExpiresAt: new Date(input.now.getTime() + MOMO_PROMPT_TTL_SECONDS * 1000).toISOString(),
    };
  },
  async authorize(attempt, code, now): Promise<ProviderOutcome> {
    if (attempt.scenario === 'unavailable') throw unavailable();
    if (promptExpired(attempt, now)) return { status: 'expired', rawStatus: 'PROMPT_EXPIRED', declineReason: 'prompt_expired' };
    if (attempt.scenario === 'payer_declined') return { status: 'declined', rawStatus: 'FAILED:PAYER_DECLINED', declineReason: 'payer_declined' };
    if (code !== SANDBOX_MOMO_APPROVE_CODE) return { status: 'declined', rawStatus: 'FAILED:INVALID_CODE', declineReason: 'invalid_code' };
    if (attempt.scenario === 'insufficient_funds') return { status: 'declined', rawStatus: 'FAILED:INSUFFICIENT_FUNDS', declineReason: 'insufficient_funds' };
    if (attempt.scenario === 'stuck') return { status: 'pending', rawStatus: 'AWAITING_CALLBACK' };
    return { status: 'succeeded', rawStatus: 'SUCCESSFUL' };
  },
  async refresh(attempt, now): Promise<ProviderOutcome> {
    if (attempt.scenario === 'unavailable') throw unavailable();
    const unconfirmed = unconfirmedCall(attempt);
    if (unconfirmed) return unconfirmed;
    if (attempt.raw_status === 'AWAITING_CALLBACK') return { status: 'succeeded', rawStatus: 'SUCCESSFUL' };
    if (promptExpired(attempt, now)) return { status: 'expired', rawStatus: 'PROMPT_EXPIRED', declineReason: 'prompt_expired' };
    // A code whose authorize never finished did not reach the sandbox: the prompt waits for one again.
    if (attempt.raw_status === IN_FLIGHT.authorizing) return { status: 'pending', rawStatus: 'PROMPT_SENT' };
    return { status: attempt.status, rawStatus: attempt.raw_status, declineReason: attempt.decline_reason };
  },
  async resend(attempt, now): Promise<ProviderOutcome> {
    if (attempt.scenario === 'unavailable') throw unavailable();
    if (promptExpired(attempt, now)) return { status: 'expired', rawStatus: 'PROMPT_EXPIRED', declineReason: 'prompt_expired' };
    return { status: 'pending', rawStatus: 'PROMPT_SENT' };
  },
};
