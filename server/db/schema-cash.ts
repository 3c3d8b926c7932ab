/** Row types of cash slips, deposits and cash-ups (the Database of schema.ts). */

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
