import type { Generated } from 'kysely';
import type { EventsTable, WebhookDeliveriesTable, WebhookDeliveryAttemptsTable } from './schema-webhooks';
import type { MerchantsTable, IntegrationsTable, ApiKeysTable, ApiKeyUsageTable, WebhookEndpointsTable } from './schema-merchants';
import type { RevenueLinesTable, RevenueLineSyncsTable, InvoiceLinesTable, InvoiceSummariesTable, InvoiceSummaryDeltasTable } from './schema-invoices';
import type { FinanceDayTotalsTable, ExceptionReviewsTable } from './schema-finance';
import type { CheckoutSessionsTable, IdempotencyKeysTable, BanksTable, BranchesTable, FeeRulesTable, PaymentAttemptsTable, SessionHistoryTable } from './schema-sessions';
import type { CashUpsTable, CashSlipsTable, CashDepositsTable } from './schema-cash';
import type { SetupLinksTable, StaffUsersTable, StaffSessionsTable, StaffLoginFailuresTable, ServerSecretsTable, AuditLogTable, AuditPruneMarksTable } from './schema-staff';

export type { EventsTable, WebhookDeliveriesTable } from './schema-webhooks';
export type { IntegrationsTable, WebhookEndpointsTable } from './schema-merchants';
export type { RevenueLinesTable, InvoiceSummariesTable, InvoiceSummaryDeltasTable } from './schema-invoices';
export type { FinanceDayTotalsTable, ExceptionReviewsTable } from './schema-finance';
export type { CheckoutSessionsTable, IdempotencyKeysTable, PaymentAttemptsTable } from './schema-sessions';
export type { CashUpsTable, CashSlipsTable, CashDepositsTable } from './schema-cash';
export type { AuditLogTable } from './schema-staff';

/** Row types of every table, as Kysely sees them (one file per area: schema-*.ts). Booleans are 0/1 integers, times ISO-8601 UTC text. */
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
