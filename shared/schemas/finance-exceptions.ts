import { z } from 'zod';
import { IsoDateTime, SessionStatus } from './common';

/**
 * Finance exceptions (`GET /api/backoffice/v1/exceptions`, docs/backoffice.md): payments that
 * do not reconcile with the invoice they pay. Shared by the server and the back office.
 */
export const EXCEPTION_KINDS = ['overpaid', 'paid_twice', 'concurrent_sessions_paid', 'amount_differs'] as const;
export const ExceptionKind = z.enum(EXCEPTION_KINDS);
export type ExceptionKind = z.infer<typeof ExceptionKind>;

const ExceptionSession = z.object({
  id: z.string(),
  status: SessionStatus,
  amount_minor: z.number().int(),
  paid_rail: z.string().nullable(),
  created_at: IsoDateTime,
  finalized_at: IsoDateTime.nullable(),
  /** True for the payment this exception is about; false for the earlier ones it is measured against. */
  trigger: z.boolean(),
});
type ExceptionSession = z.infer<typeof ExceptionSession>;

export const FinanceException = z.object({
  /** Stable: `{kind}:{session id of the triggering payment}`. */
  id: z.string(),
  kind: ExceptionKind,
  invoice_ref: z.string(),
  currency: z.string(),
  /** Sum of the invoice's lines (0 when it has none). */
  billed_minor: z.number().int(),
  /** What the invoice had collected before the triggering payment. */
  collected_before_minor: z.number().int(),
  /** The triggering payment (the session's base amount, fees excluded). */
  amount_minor: z.number().int(),
  /** Everything collected for the invoice so far. */
  collected_minor: z.number().int(),
  /** collected − billed: positive is over-paid, negative still outstanding. */
  difference_minor: z.number().int(),
  session_id: z.string(),
  detected_at: IsoDateTime,
  /** One sentence a clerk reads: what happened, with the amounts. */
  summary: z.string(),
  sessions: z.array(ExceptionSession),
  /** The mode of the payments (test payments are checked against test lines only, live against live). */
  mode: z.enum(['test', 'live']),
});
export type FinanceException = z.infer<typeof FinanceException>;

export const ExceptionListQuery = z.object({
  merchant_id: z.string().max(80).optional(),
  kind: ExceptionKind.optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  offset: z.coerce.number().int().min(0).default(0),
});
export const ExceptionsExportQuery = ExceptionListQuery.omit({ limit: true, offset: true });

export const ExceptionList = z.object({
  exceptions: z.array(FinanceException),
  total: z.number().int(),
  /** Exceptions of each kind (whatever `kind` filters), for the screen's tabs. */
  counts: z.object({
    overpaid: z.number().int(),
    paid_twice: z.number().int(),
    concurrent_sessions_paid: z.number().int(),
    amount_differs: z.number().int(),
  } satisfies Record<ExceptionKind, z.ZodNumber>),
});
export type ExceptionList = z.infer<typeof ExceptionList>;

// ---------------------------------------------------------------- work items
/**
 * Exceptions as work items (`GET /exception-items`): one per invoice that does not reconcile,
 * the kinds found on it merged, with what a clerk decided about it. A review holds only while
 * the invoice's figures are those it was made at: a later payment reopens it (`reopened`).
 */
const EXCEPTION_STATUSES = ['open', 'resolved', 'ignored'] as const;
export const ExceptionStatus = z.enum(EXCEPTION_STATUSES);
export type ExceptionStatus = z.infer<typeof ExceptionStatus>;

export const ExceptionItem = z.object({
  invoice_ref: z.string(),
  currency: z.string(),
  kinds: z.array(ExceptionKind),
  billed_minor: z.number().int(),
  collected_minor: z.number().int(),
  /** collected − billed: positive is over-paid, negative still outstanding. */
  difference_minor: z.number().int(),
  /** Successful payments on the invoice. */
  payments: z.number().int(),
  /** The newest exception's time. */
  detected_at: IsoDateTime,
  /** One sentence per kind found. */
  summaries: z.array(z.string()),
  status: ExceptionStatus,
  /** The last review (null when none): its note, who and when. */
  note: z.string().nullable(),
  reviewed_by: z.string().nullable(),
  reviewed_at: IsoDateTime.nullable(),
  /** Resolved or ignored once, open again because the invoice's payments changed since. */
  reopened: z.boolean(),
  exceptions: z.array(FinanceException),
});
export type ExceptionItem = z.infer<typeof ExceptionItem>;

export const ExceptionItemQuery = z.object({
  merchant_id: z.string().max(80).optional(),
  status: z.enum(['open', 'resolved', 'ignored', 'all']).default('open'),
  kind: ExceptionKind.optional(),
  /** One invoice's item only (the invoice screen's link). */
  invoice_ref: z.string().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(25),
  offset: z.coerce.number().int().min(0).default(0),
});

export const ExceptionItemList = z.object({
  items: z.array(ExceptionItem),
  total: z.number().int(),
  /** Items by status (whatever `status` and `kind` filter). */
  counts: z.object({ open: z.number().int(), resolved: z.number().int(), ignored: z.number().int() }),
});
export type ExceptionItemList = z.infer<typeof ExceptionItemList>;

export const ExceptionReviewBody = z.object({
  status: ExceptionStatus,
  note: z
    .string({ error: 'is required: say what was done or why' })
    .trim()
    .min(1, { error: 'is required: say what was done or why' })
    .max(1000, { error: 'must be at most 1000 characters' }),
});
export const ExceptionReviewParams = z.object({ invoice_ref: z.string().min(1).max(200) });
export const ExceptionReviewQuery = z.object({ merchant_id: z.string().max(80).optional() });
export const ExceptionReview = z.object({
  invoice_ref: z.string(),
  status: ExceptionStatus,
  note: z.string(),
  reviewed_by: z.string(),
  reviewed_at: IsoDateTime,
});

export const WorkCounts = z.object({
  /** Open exceptions of the caller's merchant (finance) or of every merchant (admin); null for other roles. */
  exceptions_open: z.number().int().nullable(),
  /** Deposits waiting for review (supervisors); null for other roles. */
  deposits_waiting: z.number().int().nullable(),
});
export type WorkCounts = z.infer<typeof WorkCounts>;
