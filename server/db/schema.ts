import type { Generated } from 'kysely';
import type { Rail } from '../../shared/schemas/common';
import type { EventsTable, WebhookDeliveriesTable, WebhookDeliveryAttemptsTable } from './schema-webhooks';

export type { EventsTable, WebhookDeliveriesTable } from './schema-webhooks';

/** Row types of every table, as Kysely sees them. Booleans are 0/1 integers, times ISO-8601 UTC text. */
interface MerchantsTable {
  id: string;
  name: string;
  created_at: string;
}

export interface IntegrationsTable {
  id: string;
  merchant_id: string;
  name: string;
  mode: 'test' | 'live';
  /** JSON array of rails this integration accepts. */
  allowed_rails: string;
  card_collection_mode: 'direct_card' | 'test_simulation';
  created_at: string;
  disabled_at: string | null;
  /** JSON array of the Mobile Money countries served (migration 0041); null: every country of the session's currency. */
  momo_countries?: string | null;
}

interface ApiKeysTable {
  id: string;
  integration_id: string;
  /** First characters of the key, safe to show ("ak_test_AbCd"). */
  prefix: string;
  /** SHA-256 of the whole key; the key itself is never stored. */
  key_hash: string;
  mode: 'test' | 'live';
  /** What the admin calls it ("Shop server"); null for keys made before names existed. */
  name: string | null;
  created_at: string;
  /** Unused: last use lives in api_key_usage (a write here would drop the key cache). */
  last_used_at: string | null;
  revoked_at: string | null;
}

interface ApiKeyUsageTable {
  api_key_id: string;
  last_used_at: string;
}

export interface WebhookEndpointsTable {
  id: string;
  integration_id: string;
  url: string;
  /** Signing secret (needed in clear to sign); never returned by any API after creation. */
  secret: string;
  /** Previous secret while a rotation overlap lasts. */
  previous_secret: string | null;
  previous_secret_expires_at: string | null;
  status: 'active' | 'disabled';
  disabled_reason: string | null;
  created_at: string;
  updated_at: string;
}

export interface RevenueLinesTable {
  id: string;
  merchant_id: string;
  /** Lines are kept per mode: a test sync never touches what live invoices use. */
  mode: 'test' | 'live';
  code: string;
  name: string;
  active: number;
  source: string;
  last_synced_at: string;
  created_at: string;
  updated_at: string;
}

interface RevenueLineSyncsTable {
  id: string;
  merchant_id: string;
  integration_id: string | null;
  created: number;
  updated: number;
  reactivated: number;
  deactivated: number;
  unchanged: number;
  total: number;
  error_count: number;
  created_at: string;
}

interface InvoiceLinesTable {
  id: string;
  merchant_id: string;
  mode: 'test' | 'live';
  invoice_ref: string;
  code: string;
  name: string;
  amount_minor: number;
  currency: string;
  remitted: number;
  remitted_at: string | null;
  created_at: string;
  updated_at: string;
}

/** One row per (merchant_id, invoice_ref): what the invoice list and detail show (migration 0017, domain/invoice-summary.ts). */
export interface InvoiceSummariesTable {
  merchant_id: string;
  invoice_ref: string;
  line_currency: string | null;
  line_count: number;
  billed_minor: number;
  lines_remitted_at: string | null;
  lines_updated_at: string | null;
  session_count: number;
  success_count: number;
  paid_minor: number;
  first_success_at: string | null;
  sessions_updated_at: string | null;
  latest_session_id: string | null;
  latest_session_created_at: string | null;
  latest_session_status: CheckoutSessionsTable['status'] | null;
  latest_session_currency: string | null;
  remitted: number;
  remitted_at: string | null;
  updated_at: string;
  /** The test-mode part of the counts above (migration 0035): a test payment never counts on a live invoice. */
  test_line_count: number;
  test_billed_minor: number;
  test_success_count: number;
  test_paid_minor: number;
}

/** What one write adds to an invoice's summary, until the fold applies it (migration 0021, jobs/invoice-summary-fold.ts). */
export interface InvoiceSummaryDeltasTable {
  seq: Generated<number>;
  merchant_id: string;
  invoice_ref: string;
  sessions: number;
  successes: number;
  paid_minor: number;
  first_success_at: string | null;
  sessions_updated_at: string | null;
  session_id: string | null;
  session_created_at: string | null;
  lines: number;
  /** The status a moved session went to (migration 0037); null for created sessions and line changes. */
  status: string | null;
}

/** The finance overview's totals per (merchant, currency, UTC day, mode, rail, status) (migration 0037, server/domain/day-totals.ts). */
export interface FinanceDayTotalsTable {
  merchant_id: string;
  currency: string;
  day: string;
  mode: 'test' | 'live';
  /** The rail that paid (successes), '' otherwise. */
  rail: string;
  /** 'created', or the terminal status reached that day. */
  status: 'created' | 'success' | 'failed' | 'expired';
  sessions: number;
  base_minor: number;
  collected_minor: number;
  payer_fee_minor: number;
  merchant_fee_minor: number;
}

/** What a clerk decided about an invoice's exception (migration 0038), with the invoice's figures then. */
export interface ExceptionReviewsTable {
  merchant_id: string;
  invoice_ref: string;
  status: 'open' | 'resolved' | 'ignored';
  note: string;
  reviewed_by: string;
  reviewed_by_name: string;
  reviewed_at: string;
  success_count: number;
  paid_minor: number;
  billed_minor: number;
}

/** A first-run setup link (migration 0044): the SHA-256 of its token (hex), until when it works, and when it was used. */
interface SetupLinksTable {
  id: string;
  token_hash: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

/** A teller's cash-up of one business day and currency (migration 0040); counts are JSON `{ code: pieces }`. */
export interface CashUpsTable {
  id: string;
  teller_id: string;
  business_day: string;
  currency: string;
  status: 'open' | 'teller_signed' | 'supervisor_signed';
  float_minor: number | null;
  float_denominations: string | null;
  counted_minor: number | null;
  count_denominations: string | null;
  approved_minor: number | null;
  under_review_minor: number | null;
  rejected_minor: number | null;
  expected_minor: number | null;
  teller_signed_at: string | null;
  supervisor_id: string | null;
  supervisor_signed_at: string | null;
  supervisor_note: string | null;
  created_at: string;
  updated_at: string;
}

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

interface BanksTable {
  id: string;
  name: string;
  code: string;
  active: number;
  created_at: string;
}

interface BranchesTable {
  id: string;
  bank_id: string;
  name: string;
  code: string;
  active: number;
  created_at: string;
}

interface StaffUsersTable {
  id: string;
  username: string;
  password_hash: string;
  role: 'teller' | 'supervisor' | 'finance' | 'admin';
  branch_id: string | null;
  merchant_id: string | null;
  created_at: string;
  disabled_at: string | null;
  /** 1 after an admin creates or resets the account: the next sign-in must choose a new password. */
  must_change_password: Generated<number>;
  password_changed_at: string | null;
  /** The person's full name (migration 0039): printed on receipts; null for accounts made before. */
  full_name?: string | null;
  /** The language chosen in the staff menu (migration 0042); null: the browser's. */
  language?: 'en' | 'fr' | null;
}

interface FeeRulesTable {
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

export interface CashSlipsTable {
  id: string;
  token: string;
  reference: string;
  /** `reference` normalised for typed lookups (server/lib/slip-reference.ts); null only on rows written by another version. */
  reference_key: string | null;
  session_id: string;
  amount_minor: number;
  base_minor: number;
  fee_minor: number;
  currency: string;
  status: 'active' | 'under_review' | 'used' | 'voided' | 'expired';
  expires_at: string;
  created_at: string;
  updated_at: string;
}

export interface CashDepositsTable {
  id: string;
  slip_id: string;
  session_id: string;
  amount_minor: number;
  currency: string;
  branch_id: string | null;
  note: string | null;
  status: 'under_review' | 'approved' | 'rejected';
  recorded_by: string;
  reviewed_by: string | null;
  review_reason: string | null;
  created_at: string;
  reviewed_at: string | null;
  /** Short number per branch and day (migration 0039); null for deposits recorded before. */
  receipt_no?: string | null;
}

interface SessionHistoryTable {
  id: string;
  session_id: string;
  from_status: string;
  to_status: string;
  cause: string;
  at: string;
}

interface StaffSessionsTable {
  id: string;
  staff_id: string;
  /** SHA-256 of the bearer token; the token itself is never stored. */
  token_hash: string;
  created_at: string;
  expires_at: string;
  last_seen_at: string;
  revoked_at: string | null;
  ip: string | null;
}

interface StaffLoginFailuresTable {
  id: string;
  throttle_key: string;
  at: string;
}

/** Random secrets of this database, made by the migrations (the sign-in throttle's HMAC key: auth/username.ts). */
interface ServerSecretsTable {
  name: string;
  value: string;
}

export interface AuditLogTable {
  id: string;
  at: string;
  actor_id: string | null;
  actor_username: string;
  actor_role: string;
  action: string;
  target_type: string;
  target_id: string | null;
  merchant_id: string | null;
  /** JSON of the state before the action, or null. */
  before: string | null;
  /** JSON of the state after the action, or null. */
  after: string | null;
  ip: string | null;
}

/** Each audit prune (`db:prune`): rows older than `cutoff` may be deleted (migration 0014). Append-only. */
interface AuditPruneMarksTable {
  id: string;
  cutoff: string;
  recorded_at: string;
  reason: string;
}

export interface Database {
  audit_prune_marks: AuditPruneMarksTable;
  api_key_usage: ApiKeyUsageTable;
  merchants: MerchantsTable;
  integrations: IntegrationsTable;
  api_keys: ApiKeysTable;
  webhook_endpoints: WebhookEndpointsTable;
  revenue_lines: RevenueLinesTable;
  revenue_line_syncs: RevenueLineSyncsTable;
  invoice_lines: InvoiceLinesTable;
  checkout_sessions: CheckoutSessionsTable;
  invoice_summaries: InvoiceSummariesTable;
  invoice_summary_deltas: InvoiceSummaryDeltasTable;
  finance_day_totals: FinanceDayTotalsTable;
  exception_reviews: ExceptionReviewsTable;
  idempotency_keys: IdempotencyKeysTable;
  banks: BanksTable;
  branches: BranchesTable;
  staff_users: StaffUsersTable;
  setup_links: SetupLinksTable;
  fee_rules: FeeRulesTable;
  payment_attempts: PaymentAttemptsTable;
  cash_slips: CashSlipsTable;
  cash_deposits: CashDepositsTable;
  cash_ups: CashUpsTable;
  session_history: SessionHistoryTable;
  events: EventsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_delivery_attempts: WebhookDeliveryAttemptsTable;
  staff_sessions: StaffSessionsTable;
  staff_login_failures: StaffLoginFailuresTable;
  server_secrets: ServerSecretsTable;
  audit_log: AuditLogTable;
  kysely_migration: { name: string; timestamp: string };
  _generated?: { id: Generated<number> };
}
