import { z } from 'zod';
import { IsoDateTime, SessionStatus } from './common';

/**
 * Finance exceptions (`GET /api/backoffice/v1/exceptions`, docs/backoffice.md): payments that
 * do not reconcile with the invoice they pay. Shared by the server and the back office.
 */
export const EXCEPTION_KINDS = ['overpaid', 'paid_twice', 'concurrent_sessions_paid', 'amount_differs'] as const;
export const ExceptionKind = z.enum(EXCEPTION_KINDS);
export type ExceptionKind = z.infer<typeof ExceptionKind>;

export const EXCEPTION_KIND_LABELS: Record<ExceptionKind, string> = {
  overpaid: 'Over-paid',
  paid_twice: 'Paid twice',
  concurrent_sessions_paid: 'Two open sessions paid',
  amount_differs: 'Part-payment',
};

export const ExceptionSession = z.object({
  id: z.string(),
  status: SessionStatus,
  amount_minor: z.number().int(),
  paid_rail: z.string().nullable(),
  created_at: IsoDateTime,
  finalized_at: IsoDateTime.nullable(),
  /** True for the payment this exception is about; false for the earlier ones it is measured against. */
  trigger: z.boolean(),
});
export type ExceptionSession = z.infer<typeof ExceptionSession>;

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
