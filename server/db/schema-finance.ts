/** Row types of the finance overview's day totals and the exception reviews (the Database of schema.ts). */

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
