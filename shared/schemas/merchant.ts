import { z } from 'zod';
import { requiredOr, AmountMinor, Currency, DEFAULT_CURRENCY, IsoDateTime, LineError, QueryBoolean, SessionStatus } from './common';

// ---------------------------------------------------------------- limits
export const LIMITS = {
  invoiceRef: 120,
  description: 240,
  customerName: 200,
  callbackUrl: 500,
  expiresInMin: 60,
  expiresInMax: 86_400,
  revenueLineCode: 64,
  revenueLineName: 200,
  linesPerRequest: 1000,
  metadataKeys: 50,
  metadataKeyLength: 40,
  metadataBytes: 16_384,
} as const;

/** Default session lifetime when `expires_in_seconds` is omitted: 24 hours. */
export const DEFAULT_SESSION_LIFETIME_SECONDS = 86_400;

const InvoiceRef = z
  .string({ error: requiredOr('must be a string') })
  .trim()
  .min(1, { error: 'must not be empty' })
  .max(LIMITS.invoiceRef, { error: `must be at most ${LIMITS.invoiceRef} characters` });

// ---------------------------------------------------------------- revenue lines
/** One line of a sync request; checked line by line so one bad line gives a 207, not a 400. */
export const RevenueLineInput = z.object({
  code: z
    .string({ error: requiredOr('must be a string') })
    .trim()
    .min(1, { error: 'must not be empty' })
    .max(LIMITS.revenueLineCode, { error: `must be at most ${LIMITS.revenueLineCode} characters` }),
  name: z
    .string({ error: requiredOr('must be a string') })
    .trim()
    .min(1, { error: 'must not be empty' })
    .max(LIMITS.revenueLineName, { error: `must be at most ${LIMITS.revenueLineName} characters` }),
});

export const RevenueLineSyncRequest = z.object({
  lines: z
    .array(z.unknown(), { error: requiredOr('must be an array') })
    .max(LIMITS.linesPerRequest, { error: `must hold at most ${LIMITS.linesPerRequest} lines` }),
  deactivate_missing: z.boolean().default(false),
});
export type RevenueLineSyncRequest = z.infer<typeof RevenueLineSyncRequest>;

export const RevenueLineSyncResponse = z.object({
  object: z.literal('revenue_lines.sync'),
  created: z.number().int(),
  updated: z.number().int(),
  reactivated: z.number().int(),
  deactivated: z.number().int(),
  unchanged: z.number().int(),
  total: z.number().int(),
  errors: z.array(LineError),
});
export type RevenueLineSyncResponse = z.infer<typeof RevenueLineSyncResponse>;

export const RevenueLine = z.object({
  id: z.string(),
  merchant_id: z.string(),
  code: z.string(),
  name: z.string(),
  active: z.boolean(),
  source: z.string(),
  last_synced_at: IsoDateTime,
  created_at: IsoDateTime,
  updated_at: IsoDateTime,
});
export type RevenueLine = z.infer<typeof RevenueLine>;

export const RevenueLineListQuery = z.object({
  include_inactive: QueryBoolean.optional(),
});

export const RevenueLineListResponse = z.object({
  object: z.literal('list'),
  lines: z.array(RevenueLine),
  counts: z.object({ total: z.number().int(), active: z.number().int(), inactive: z.number().int() }),
});
export type RevenueLineListResponse = z.infer<typeof RevenueLineListResponse>;

// ---------------------------------------------------------------- invoice lines
/** One invoice line; amounts are checked line by line (INVOICE_LINE_AMOUNT_INVALID in `errors`). */
export const InvoiceLineInput = z.object({
  code: RevenueLineInput.shape.code,
  name: RevenueLineInput.shape.name.optional(),
  amount_minor: AmountMinor,
});

export const InvoiceLineIngestRequest = z.object({
  invoice_ref: InvoiceRef,
  currency: Currency.default(DEFAULT_CURRENCY),
  lines: z
    .array(z.unknown(), { error: requiredOr('must be an array') })
    .min(1, { error: 'must hold at least one line' })
    .max(LIMITS.linesPerRequest, { error: `must hold at most ${LIMITS.linesPerRequest} lines` }),
});
export type InvoiceLineIngestRequest = z.infer<typeof InvoiceLineIngestRequest>;

export const InvoiceLineIngestResponse = z.object({
  object: z.literal('invoice.line_items'),
  invoice_ref: z.string(),
  ingested: z.number().int(),
  billed_minor: z.number().int(),
  errors: z.array(LineError),
});
export type InvoiceLineIngestResponse = z.infer<typeof InvoiceLineIngestResponse>;

export const InvoiceLineListQuery = z.object({ invoice_ref: InvoiceRef });

const InvoiceLine = z.object({
  code: z.string(),
  name: z.string(),
  amount_minor: z.number().int(),
  currency: z.string(),
  remitted: z.boolean(),
});

export const InvoiceLineListResponse = z.object({
  object: z.literal('invoice.line_items'),
  invoice_ref: z.string(),
  lines: z.array(InvoiceLine),
  total_minor: z.number().int(),
});
export type InvoiceLineListResponse = z.infer<typeof InvoiceLineListResponse>;

// ---------------------------------------------------------------- checkout sessions
// Key length is checked on the whole record: a failing key schema would only say "Invalid key in record".
const Metadata = z
  .record(z.string(), z.unknown(), { error: requiredOr('must be an object of key-value pairs') })
  .refine((m) => Object.keys(m).every((k) => k.length >= 1 && k.length <= LIMITS.metadataKeyLength), {
    error: `keys must be 1 to ${LIMITS.metadataKeyLength} characters`,
  })
  .refine((m) => Object.keys(m).length <= LIMITS.metadataKeys, { error: `must have at most ${LIMITS.metadataKeys} keys` })
  .refine((m) => new TextEncoder().encode(JSON.stringify(m)).length <= LIMITS.metadataBytes, {
    error: `must serialise to at most ${LIMITS.metadataBytes} bytes of JSON`,
  });

export const CheckoutSessionCreate = z.object({
  amount_minor: AmountMinor,
  invoice_ref: InvoiceRef,
  description: z.string().max(LIMITS.description, { error: `must be at most ${LIMITS.description} characters` }).optional(),
  currency: Currency.default(DEFAULT_CURRENCY),
  customer: z
    .object({
      name: z.string().max(LIMITS.customerName, { error: `must be at most ${LIMITS.customerName} characters` }).optional(),
      email: z.email({ error: 'must be an email address' }).max(254).optional(),
    })
    .optional(),
  callback_url: z
    .url({ protocol: /^https?$/, error: 'must be an http or https URL' })
    .max(LIMITS.callbackUrl, { error: `must be at most ${LIMITS.callbackUrl} characters` })
    .optional(),
  metadata: Metadata.optional(),
  expires_in_seconds: z
    .number({ error: requiredOr('must be an integer number of seconds') })
    .int({ error: 'must be an integer number of seconds' })
    .min(LIMITS.expiresInMin, { error: `must be at least ${LIMITS.expiresInMin}` })
    .max(LIMITS.expiresInMax, { error: `must be at most ${LIMITS.expiresInMax}` })
    .optional(),
});
export type CheckoutSessionCreate = z.infer<typeof CheckoutSessionCreate>;

export const CheckoutSessionResponse = z.object({
  id: z.string(),
  object: z.literal('checkout.session'),
  status: SessionStatus,
  amount_minor: z.number().int(),
  currency: z.string(),
  invoice_ref: z.string(),
  description: z.string().optional(),
  checkout_url: z.string(),
  expires_at: IsoDateTime,
  created_at: IsoDateTime,
  callback_url: z.string().optional(),
  customer: z.object({ name: z.string().optional(), email: z.string().optional() }).optional(),
  metadata: z.record(z.string(), z.unknown()),
});
export type CheckoutSessionResponse = z.infer<typeof CheckoutSessionResponse>;

/** Any reference that names no session of this merchant is 404 NOT_FOUND, however long. */
export const SessionReferenceParams = z.object({
  reference: z.string().describe('the session id (`cs_test_…`)'),
});
