import type { Generated } from 'kysely';
import type { CheckoutSessionsTable } from './schema-sessions';

/** Row types of revenue lines, invoice lines and the invoice summaries (the Database of schema.ts). */

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

export interface RevenueLineSyncsTable {
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

export interface InvoiceLinesTable {
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
