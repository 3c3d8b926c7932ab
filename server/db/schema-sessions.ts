import type { Rail } from '../../shared/schemas/common';

/** Row types of checkout sessions, idempotency keys, banks, fees and payment attempts (the Database of schema.ts). */

export interface CheckoutSessionsTable {
  id: string;
  merchant_id: string;
  integration_id: string;
  status: 'open' | 'pending' | 'success' | 'failed' | 'expired';
  amount_minor: number;
  currency: string;
  invoice_ref: string;
  description: string | null;
  customer_name: string | null;
  customer_email: string | null;
  callback_url: string | null;
  /** JSON object. */
  metadata: string;
  /** Rail of the payment that settled the session, once it has. */
  paid_rail: string | null;
  expires_at: string;
  created_at: string;
  updated_at: string;
  finalized_at: string | null;
}

export interface IdempotencyKeysTable {
  integration_id: string;
  key: string;
  method: string;
  path: string;
  fingerprint: string;
  state: 'in_flight' | 'completed';
  response_status: number | null;
  response_body: string | null;
  created_at: string;
  expires_at: string;
}

export interface BanksTable {
  id: string;
  name: string;
  code: string;
  active: number;
  created_at: string;
}

export interface BranchesTable {
  id: string;
  bank_id: string;
  name: string;
  code: string;
  active: number;
  created_at: string;
}

export interface FeeRulesTable {
  id: string;
  integration_id: string;
  rail: Rail;
  percent_bps: number;
  fixed_minor: number;
  cap_minor: number | null;
  bearer: 'payer' | 'merchant';
  created_at: string;
  updated_at: string;
  /** ISO 4217 code: fixed_minor and cap_minor are minor units of it (migration 0034). */
  currency: string;
}

export interface PaymentAttemptsTable {
  id: string;
  session_id: string;
  rail: Rail;
  provider: string;
  provider_reference: string;
  status: 'pending' | 'succeeded' | 'declined' | 'expired';
  raw_status: string;
  decline_reason: string | null;
  base_minor: number;
  fee_minor: number;
  amount_charged_minor: number;
  currency: string;
  operator: string | null;
  /** Normalised 233XXXXXXXXX; never leaves the server (responses carry phone_last4 only). */
  phone: string | null;
  phone_last4: string | null;
  account_name: string | null;
  payment_reference: string | null;
  card_brand: string | null;
  card_last4: string | null;
  /** Sandbox behaviour chosen from the test inputs (normal, declined, insufficient_funds, …). */
  scenario: string;
  resend_count: number;
  code_sent_at: string | null;
  prompt_expires_at: string | null;
  created_at: string;
  updated_at: string;
  finalized_at: string | null;
}

export interface SessionHistoryTable {
  id: string;
  session_id: string;
  from_status: string;
  to_status: string;
  cause: string;
  at: string;
}
