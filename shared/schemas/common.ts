import { z } from 'zod';

/** `is required` when the value is absent, else `message`: every field error names what is wrong. */
export const requiredOr =
  (message: string) =>
  (issue: { input?: unknown }): string =>
    issue.input === undefined ? 'is required' : message;

// Default messages for issues a schema does not word itself.
z.config({
  customError: (issue) => {
    if (issue.code === 'invalid_type') return issue.input === undefined ? 'is required' : `must be of type ${issue.expected}`;
    return undefined;
  },
});

/** Payment methods ("rails") a checkout session can be paid with. */
export const RAILS = ['momo', 'card', 'bank_transfer', 'cash'] as const;
export const Rail = z.enum(RAILS);
export type Rail = z.infer<typeof Rail>;

export const SESSION_STATUSES = ['open', 'pending', 'success', 'failed', 'expired'] as const;
export const SessionStatus = z.enum(SESSION_STATUSES);
export type SessionStatus = z.infer<typeof SessionStatus>;
export const TERMINAL_STATUSES: readonly SessionStatus[] = ['success', 'failed', 'expired'];

/** Largest amount the service accepts: keeps every sum an exact integer in JavaScript and SQLite. */
export const MAX_AMOUNT_MINOR = 100_000_000_000_000; // 1e14 minor units

/**
 * Largest amount a payer may be asked for: a session at MAX_AMOUNT_MINOR plus the largest payer
 * fee a rule can add (a fee rule's fixed part and cap are at most MAX_AMOUNT_MINOR and its
 * percentage at most 100 %, so the fee is at most twice the cap). The cap applies to what the
 * merchant asks; the quoted total of a session at the cap is payable. Still far below
 * Number.MAX_SAFE_INTEGER, so every sum stays exact.
 */
const MAX_PAYABLE_MINOR = 3 * MAX_AMOUNT_MINOR;

/** Integer amount in minor units, at least 1. */
export const AmountMinor = z
  .number({ error: requiredOr('must be an integer number of minor units') })
  .int({ error: 'must be an integer number of minor units' })
  .min(1, { error: 'must be at least 1' })
  .max(MAX_AMOUNT_MINOR, { error: `must be at most ${MAX_AMOUNT_MINOR}` });

/** An amount a payer pays (a quoted total: the session's amount plus any payer-borne fee). */
export const PaidAmountMinor = z
  .number({ error: requiredOr('must be an integer number of minor units') })
  .int({ error: 'must be an integer number of minor units' })
  .min(1, { error: 'must be at least 1' })
  .max(MAX_PAYABLE_MINOR, { error: `must be at most ${MAX_PAYABLE_MINOR}` });

/** ISO 4217 alphabetic code: three letters, normalised to upper case. */
export const Currency = z
  .string({ error: requiredOr('must be a string') })
  .max(3, { error: 'must be at most 3 characters' })
  .regex(/^[A-Za-z]{3}$/, { error: 'must be a three-letter ISO 4217 code' })
  .transform((s) => s.toUpperCase());

export const DEFAULT_CURRENCY = 'GHS';

export const IsoDateTime = z.string().meta({ format: 'date-time' });

/** Boolean in a query string: true/false/1/0 (case-insensitive). */
export const QueryBoolean = z
  .union([z.boolean(), z.enum(['true', 'false', '1', '0', 'TRUE', 'FALSE', 'True', 'False'])])
  .transform((v) => v === true || v === 'true' || v === '1' || v === 'TRUE' || v === 'True');

/** A per-line error in a 207 multi-status answer. */
export const LineError = z.object({
  index: z.number().int(),
  code: z.string(),
  field: z.string().optional(),
  message: z.string(),
});
export type LineError = z.infer<typeof LineError>;

// The id makes it one shared component (`#/components/schemas/ErrorEnvelope`) in the OpenAPI document.
export const ErrorEnvelope = z
  .object({
    error: z.object({
      code: z.string().describe('A code from docs/errors.md, e.g. INVALID_ARGUMENT'),
      message: z.string().describe('What is wrong; a validation message starts with the field path'),
      retry_after_seconds: z.number().int().optional().describe('With RATE_LIMITED and IDEMPOTENCY_KEY_IN_FLIGHT: seconds to wait'),
      request_id: z.string().optional().describe('The request id, also in the X-Request-Id response header: quote it when reporting a problem'),
    }),
  })
  .meta({ id: 'ErrorEnvelope', description: 'Every error answer: { "error": { "code", "message" } }' });
export type ErrorEnvelope = z.infer<typeof ErrorEnvelope>;

/**
 * Bounded list totals: a back-office list counts at most LIST_TOTAL_CAP matching rows
 * (10,000 by default); `total_capped: true` says there are more and `total` (the cap) is a lower
 * bound, shown as "10,000+". Spread into each list's response shape.
 */
export const ListTotal = {
  /** Matching rows over all pages, counted up to the cap. */
  total: z.number().int(),
  /** True when counting stopped at the cap: there are more than `total`. */
  total_capped: z.boolean(),
};
/** Largest `limit` of a back-office list page (every list; docs/backoffice.md, "Pages and totals"). */
export const MAX_PAGE_SIZE = 200;
/**
 * Largest `offset` of a back-office list read from the database (sessions, invoices, deposits,
 * audit, webhook attempts). An offset reads every row it skips, synchronously on SQLite: at a
 * million sessions `offset=700000` held the server 2.7 s. Up to this depth a skip costs about
 * what the page's bounded total (LIST_TOTAL_CAP, 10,000 by default) reads already; deeper pages
 * go by `cursor`, or a narrower filter. Past it: 400 INVALID_ARGUMENT naming `offset`.
 */
export const MAX_OFFSET = 10_000;
/** A list's `offset` query parameter, 0 to MAX_OFFSET. */
export const ListOffset = z.coerce
  .number()
  .int()
  .min(0)
  .max(MAX_OFFSET, { error: `must be at most ${MAX_OFFSET.toLocaleString('en')}: page deeper with cursor (next_cursor) or narrow the filters` });
