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

/** A card charge: the number and code live only in this call (never stored or logged). */
export interface ChargeInput {
  attemptId: string;
  chargeMinor: number;
  currency: string;
  cardNumber: string;
  expiryMonth: number;
  expiryYear: number;
  now: Date;
}

export interface ChargeResult extends ProviderOutcome {
  providerReference: string;
  brand: string;
  last4: string;
}

/**
 * One payment rail's provider. Real connectors implement the same interface; the sandbox
 * implementations behave like the real thing for the documented test inputs. Every call is
 * asynchronous (a real rail is an HTTP call of seconds) and is made outside any database
 * transaction, under the timeout of `callProvider` (server/providers/call.ts).
 * A provider that is down throws AppError('PROVIDER_RAIL_UNAVAILABLE'); one that refuses
 * the payment throws a 4xx AppError, and nothing of the attempt is kept.
 */
export interface RailProvider {
  readonly rail: Rail;
  readonly name: string;
  /** Starts a payment the payer completes elsewhere (Mobile Money prompt, bank-transfer instructions). */
  initiate?(input: InitiateInput): Promise<InitiateResult>;
  /** Charges a card in one call (card). */
  charge?(input: ChargeInput): Promise<ChargeResult>;
  /** Payer's verification code (Mobile Money). */
  authorize?(attempt: PaymentAttemptsTable, code: string, now: Date): Promise<ProviderOutcome>;
  /** Ask the provider for the current status (`refresh=1`, and the reconcile job). */
  refresh(attempt: PaymentAttemptsTable, now: Date): Promise<ProviderOutcome>;
  /** Send another verification code. */
  resend?(attempt: PaymentAttemptsTable, now: Date): Promise<ProviderOutcome>;
}

export type ProviderRegistry = Partial<Record<Rail, RailProvider>>;

/**
 * Raw statuses of an attempt whose provider call is under way, or was cut off by the timeout
 * (its result unknown): the reconcile job asks the provider about them once they are stale.
 */
export const IN_FLIGHT = { initiating: 'INITIATING', authorizing: 'AUTHORIZING', charging: 'CHARGING' } as const;

/** What a sandbox provider answers about an attempt whose call it never saw finish (a crash, or a timeout). */
export function unconfirmedCall(attempt: PaymentAttemptsTable): ProviderOutcome | null {
  if (attempt.raw_status === IN_FLIGHT.initiating) return { status: 'expired', rawStatus: 'INITIATION_UNCONFIRMED', declineReason: 'provider_timeout' };
  if (attempt.raw_status === IN_FLIGHT.charging) return { status: 'expired', rawStatus: 'CHARGE_UNCONFIRMED', declineReason: 'provider_timeout' };
  return null;
}
