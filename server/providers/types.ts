import type { PaymentAttemptsTable } from '../db/schema';
import type { Rail } from '../../shared/schemas/common';

/** What a provider says about an attempt after a call. */
export interface ProviderOutcome {
  status: PaymentAttemptsTable['status'];
  rawStatus: string;
  declineReason?: string | null;
}

export interface InitiateInput {
  attemptId: string;
  sessionId: string;
  merchantName: string;
  chargeMinor: number;
  currency: string;
  operator?: string | undefined;
  /** Normalised 233XXXXXXXXX. */
  phone?: string | undefined;
  accountName?: string | undefined;
  sessionExpiresAt: string;
  now: Date;
}

export interface InitiateResult extends ProviderOutcome {
  provider: string;
  providerReference: string;
  scenario: string;
  promptExpiresAt?: string | null;
  paymentReference?: string | null;
}

/**
 * One payment rail's provider. Real connectors implement the same interface; the sandbox
 * implementations behave like the real thing for the documented test inputs.
 * A provider that is down throws AppError('PROVIDER_RAIL_UNAVAILABLE').
 */
export interface RailProvider {
  readonly rail: Rail;
  readonly name: string;
  initiate(input: InitiateInput): InitiateResult;
  /** Payer's verification code (Mobile Money). */
  authorize?(attempt: PaymentAttemptsTable, code: string, now: Date): ProviderOutcome;
  /** Ask the provider for the current status (`refresh=1`). */
  refresh(attempt: PaymentAttemptsTable, now: Date): ProviderOutcome;
  /** Send another verification code. */
  resend?(attempt: PaymentAttemptsTable, now: Date): ProviderOutcome;
}

export type ProviderRegistry = Partial<Record<Rail, RailProvider>>;
