import { z } from 'zod';
import { CashDepositSlipResponse } from './checkout';
import { IsoDateTime, ListOffset, ListTotal, MAX_PAGE_SIZE, PaidAmountMinor, Rail, requiredOr, SessionStatus } from './common';

/** Back-office API shapes: the cash desk: slips as tellers scan them, deposits and their review, the shift total. */

const text = (max: number) =>
  z
    .string({ error: requiredOr('must be a string') })
    .trim()
    .min(1, { error: 'must not be empty' })
    .max(max, { error: `must be at most ${max} characters` });

export const SlipTokenParams = z.object({ slip_token: z.string().min(1).max(100) });
export const DepositIdParams = z.object({ deposit_id: z.string().min(1).max(80) });

export const DEPOSIT_STATUSES = ['under_review', 'approved', 'rejected'] as const;
export const DepositStatus = z.enum(DEPOSIT_STATUSES);
export type DepositStatus = z.infer<typeof DepositStatus>;

export const StaffRef = z.object({ id: z.string(), username: z.string(), full_name: z.string().nullable().optional() });

export const CashDeposit = z.object({
  id: z.string(),
  status: DepositStatus,
  amount_minor: z.number().int(),
  currency: z.string(),
  slip_reference: z.string(),
  session_id: z.string(),
  session_status: SessionStatus,
  merchant_id: z.string(),
  merchant_name: z.string(),
  invoice_ref: z.string(),
  customer_name: z.string(),
  /** The session's description (printed on the teller's receipt). */
  description: z.string(),
  /** The integration's mode: receipts of test sessions carry a TEST marker. */
  mode: z.enum(['test', 'live']),
  branch_id: z.string().nullable(),
  branch_name: z.string().nullable(),
  note: z.string().nullable(),
  recorded_by: StaffRef,
  reviewed_by: StaffRef.nullable(),
  review_reason: z.string().nullable(),
  created_at: IsoDateTime,
  reviewed_at: IsoDateTime.nullable(),
  /** Short receipt number per branch and day (`ACC-RDG-20261129-0042`); null for deposits recorded before it existed. */
  receipt_no: z.string().nullable().optional(),
});
export type CashDeposit = z.infer<typeof CashDeposit>;

/** The slip as a teller scans it: the payer-side slip fields plus the session's status and any deposit on it. */
export const ScannedSlip = CashDepositSlipResponse.extend({
  session_status: SessionStatus,
  /** How the session was paid once it is `success` (an online payment makes the slip worthless: no cash). */
  paid_rail: Rail.nullable(),
  mode: z.enum(['test', 'live']),
  deposit: CashDeposit.nullable(),
});
export type ScannedSlip = z.infer<typeof ScannedSlip>;

export const DepositRecord = z.object({
  amount_minor: PaidAmountMinor,
  branch_id: z.string().max(80, { error: 'must be at most 80 characters' }).optional(),
  note: z.string().trim().max(500, { error: 'must be at most 500 characters' }).optional(),
});
export const DepositResult = z.object({ deposit: CashDeposit, slip: ScannedSlip });
export type DepositResult = z.infer<typeof DepositResult>;

export const DepositReject = z.object({ reason: text(500) });
/** The answer to an approval or a rejection. */
export const DepositReviewed = z.object({ deposit: CashDeposit });

/** The review screen's short list of rejection reasons; the supervisor may add free text after it. */
export const REJECTION_REASONS = [
  'Cash short of the slip amount',
  'Counterfeit or damaged notes',
  'Wrong slip for this cash',
  'Recorded twice',
  'Other',
] as const;

export const DEPOSIT_SORTS = ['created_at', 'amount_minor', 'status', 'merchant_name', 'slip_reference', 'recorded_by', 'reviewed_by'] as const;
const DAY = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, { error: 'must be a date, YYYY-MM-DD' });
export const DepositListQuery = z.object({
  status: DepositStatus.optional(),
  /** Staff id of the teller who recorded it. */
  recorded_by: z.string().max(80).optional(),
  branch_id: z.string().max(80).optional(),
  /** Recorded on or after this day / on or before this day, in the server's time zone (inclusive). */
  from: DAY.optional(),
  to: DAY.optional(),
  /** Default: the review queue (`status=under_review`) oldest first, otherwise newest first. */
  sort: z.enum(DEPOSIT_SORTS).optional(),
  dir: z.enum(['asc', 'desc']).optional(),
  limit: z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).default(50),
  /** At most MAX_OFFSET: it costs what it skips (the rows are read and dropped); deep pages go by `cursor`. */
  offset: ListOffset.default(0),
  /** `next_cursor` of the previous page (sort by `created_at` only, same `dir`, not with offset). */
  cursor: z.string().max(400).optional(),
});
/** `next_cursor`: the page after this one by `cursor` (null on the last page, and for sorts other than `created_at`). */
export const DepositList = z.object({ deposits: z.array(CashDeposit), ...ListTotal, next_cursor: z.string().nullable() });
export type DepositList = z.infer<typeof DepositList>;

/** The values the review queue's filters offer: tellers and branches that have recorded deposits. */
export const DepositFacets = z.object({
  tellers: z.array(StaffRef),
  branches: z.array(z.object({ id: z.string(), name: z.string() })),
});
export type DepositFacets = z.infer<typeof DepositFacets>;

/** The teller's cash-up: deposits they recorded on one day (the server's time zone), by review state. */
export const ShiftTotalQuery = z.object({ date: DAY.optional() });
export const ShiftTotal = z.object({
  date: z.string(),
  time_zone: z.string(),
  from: IsoDateTime,
  to: IsoDateTime,
  teller: StaffRef,
  /** One row per review state and currency that has deposits. */
  by_status: z.array(z.object({ status: DepositStatus, currency: z.string(), count: z.number().int(), amount_minor: z.number().int() })),
  /** Per currency, every state together. */
  totals: z.array(z.object({ currency: z.string(), count: z.number().int(), amount_minor: z.number().int() })),
  generated_at: IsoDateTime,
});
export type ShiftTotal = z.infer<typeof ShiftTotal>;
