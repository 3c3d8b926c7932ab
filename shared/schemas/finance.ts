import { z } from 'zod';
import { IsoDateTime, ListOffset, ListTotal, MAX_PAGE_SIZE, QueryBoolean, Rail, SessionStatus } from './common';

/** Back-office API shapes: finance screens: merchants, revenue lines, invoices, sessions and the payments export. */

export const MerchantScopeQuery = z.object({ merchant_id: z.string().max(80).optional() });

export const MerchantSummary = z.object({ id: z.string(), name: z.string(), created_at: IsoDateTime });
export const MerchantList = z.object({ merchants: z.array(MerchantSummary) });
export type MerchantSummary = z.infer<typeof MerchantSummary>;

const RevenueLineRow = z.object({
  id: z.string(),
  code: z.string(),
  name: z.string(),
  active: z.boolean(),
  source: z.string(),
  last_synced_at: IsoDateTime,
  updated_at: IsoDateTime,
});
const RevenueLineSync = z.object({
  id: z.string(),
  source: z.string(),
  created: z.number().int(),
  updated: z.number().int(),
  reactivated: z.number().int(),
  deactivated: z.number().int(),
  unchanged: z.number().int(),
  total: z.number().int(),
  error_count: z.number().int(),
  created_at: IsoDateTime,
});
export const RevenueLinesView = z.object({
  merchant_id: z.string(),
  lines: z.array(RevenueLineRow),
  counts: z.object({ total: z.number().int(), active: z.number().int(), inactive: z.number().int() }),
  syncs: z.array(RevenueLineSync),
});
export type RevenueLinesView = z.infer<typeof RevenueLinesView>;
export const RevenueLineIdParams = z.object({ line_id: z.string().min(1).max(80) });

export const InvoiceSummary = z.object({
  invoice_ref: z.string(),
  /**
   * The invoice's mode: that of its lines (live when it has any live line), else of its live
   * payments or latest session. Its counts and money are that mode's only: a test payment never
   * counts on a live invoice.
   */
  mode: z.enum(['test', 'live']),
  currency: z.string(),
  line_count: z.number().int(),
  billed_minor: z.number().int(),
  /** Collected by the invoice's successful sessions (fees excluded). */
  paid_minor: z.number().int(),
  /** billed − paid, never below 0 (an over-payment shows on the exceptions list). */
  outstanding_minor: z.number().int(),
  /** Fully paid: every line remitted (or, with no lines, a session succeeded). */
  remitted: z.boolean(),
  remitted_at: IsoDateTime.nullable(),
  latest_session_status: SessionStatus.nullable(),
  updated_at: IsoDateTime,
  /** nothing_billed (no lines, whatever was collected), not_paid, part_paid, paid, overpaid. */
  payment_state: z.enum(['nothing_billed', 'not_paid', 'part_paid', 'paid', 'overpaid']),
  /** paid − billed when the invoice has lines and collected more (0 otherwise). */
  overpaid_minor: z.number().int(),
  /** The payments do not reconcile: the exceptions list has a work item for this invoice. */
  has_exception: z.boolean(),
});
export type InvoiceSummary = z.infer<typeof InvoiceSummary>;
const INVOICE_SORTS = ['updated_at', 'invoice_ref', 'billed_minor', 'line_count'] as const;
export const InvoiceListQuery = MerchantScopeQuery.extend({
  q: z.string().max(120).optional(),
  remitted: QueryBoolean.optional(),
  sort: z.enum(INVOICE_SORTS).default('updated_at'),
  dir: z.enum(['asc', 'desc']).default('desc'),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  /** At most MAX_OFFSET: it costs what it skips (an index walk); deep pages go by `cursor`. */
  offset: ListOffset.default(0),
  /** `next_cursor` of the previous page, with the same sort and dir (not with offset). */
  cursor: z.string().max(400).optional(),
});
/** `next_cursor`: pass as `cursor` for the page after this one (null on the last page). */
export const InvoiceList = z.object({ invoices: z.array(InvoiceSummary), ...ListTotal, next_cursor: z.string().nullable().optional() });
export type InvoiceList = z.infer<typeof InvoiceList>;
export const InvoiceRefParams = z.object({ invoice_ref: z.string().min(1).max(120) });

const SESSION_SORTS = ['created_at', 'amount_minor', 'status', 'invoice_ref'] as const;
export const SessionListQuery = MerchantScopeQuery.extend({
  status: SessionStatus.optional(),
  rail: Rail.optional(),
  /** Contains, any case. */
  invoice_ref: z.string().max(120, { error: 'must be at most 120 characters' }).optional(),
  /** Payer name, phone last 4, session id, invoice ref, slip reference, provider or bank reference. */
  q: z.string().max(120, { error: 'must be at most 120 characters' }).optional(),
  /** Base or collected amount, in minor units. */
  amount_minor: z.coerce.number({ error: 'must be an integer number of minor units' }).int({ error: 'must be an integer number of minor units' }).min(0, { error: 'must not be negative' }).optional(),
  from: z.iso.datetime({ offset: true, error: 'must be an ISO 8601 date-time' }).optional(),
  to: z.iso.datetime({ offset: true, error: 'must be an ISO 8601 date-time' }).optional(),
  /** Live sessions, test sessions, or both (the default). */
  mode: z.enum(['live', 'test', 'all']).default('all'),
  sort: z.enum(SESSION_SORTS).default('created_at'),
  dir: z.enum(['asc', 'desc']).default('desc'),
  limit: z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).default(25),
  /** At most MAX_OFFSET: it costs what it skips (the rows are read and dropped); deep pages go by `cursor`. */
  offset: ListOffset.default(0),
  /** `next_cursor` of the previous page, with the same sort and dir (not with offset): deep pages without counting past rows. */
  cursor: z.string().max(400).optional(),
});
export const SessionRow = z.object({
  id: z.string(),
  status: SessionStatus,
  amount_minor: z.number().int(),
  currency: z.string(),
  invoice_ref: z.string(),
  description: z.string().nullable(),
  customer_name: z.string().nullable(),
  paid_rail: z.string().nullable(),
  merchant_id: z.string(),
  merchant_name: z.string(),
  created_at: IsoDateTime,
  expires_at: IsoDateTime,
  finalized_at: IsoDateTime.nullable(),
  /** Set once the session succeeded: the fee and what the payer paid (amount_minor is the base). */
  fee_minor: z.number().int().nullable(),
  collected_minor: z.number().int().nullable(),
  /** Slip, bank-transfer or provider reference of the payment that settled it. */
  payment_reference: z.string().nullable(),
  /** The session's mode (its integration's): test sessions never move real money. */
  mode: z.enum(['test', 'live']),
});
export type SessionRow = z.infer<typeof SessionRow>;
/** `next_cursor`: pass as `cursor` for the page after this one (null on the last page). */
export const SessionList = z.object({ sessions: z.array(SessionRow), ...ListTotal, next_cursor: z.string().nullable().optional() });
export type SessionList = z.infer<typeof SessionList>;
export const SessionIdParams = z.object({ session_id: z.string().min(1).max(80) });

const TIMELINE_CODES = [
  'session_created',
  'transition',
  'attempt_started',
  'attempt_finished',
  'slip_issued',
  'deposit_recorded',
  'deposit_reviewed',
  'event',
  'webhook_delivered',
  'webhook_failed',
  'webhook_held',
] as const;
/**
 * What a timeline line's `detail` says, by code; `detail_args` carries its parts (amounts in minor
 * units with their `currency`, codes, and what staff typed as they typed it). docs/backoffice.md
 * ("The timeline in sentences") lists each code's arguments. A transition's cause is one of the
 * `cause_*` codes; `cause_other` (a cause this version does not know) carries its English words.
 */
const TIMELINE_DETAIL_CODES = [
  'session_amount',
  'attempt_amounts',
  'decline_reason',
  'slip_amounts',
  'deposit_amount',
  'deposit_review',
  'cause_prompt_sent',
  'cause_instructions_issued',
  'cause_sent_to_provider',
  'cause_provider_refused',
  'cause_settled_at_initiation',
  'cause_approved_by_payer',
  'cause_confirmed_on_resend',
  'cause_approved',
  'cause_confirmed_on_refresh',
  'cause_transfer_received',
  'cause_attempt_ended',
  'cause_prompt_expired',
  'cause_transfer_window_ended',
  'cause_deposit_recorded',
  'cause_deposit_approved',
  'cause_deposit_rejected',
  'cause_decline_limit',
  'cause_no_method_left',
  'cause_time_ran_out',
  'cause_other',
] as const;
export type TimelineDetailCode = (typeof TIMELINE_DETAIL_CODES)[number];
const TimelineArgs = z.record(z.string(), z.union([z.string(), z.number(), z.null()]));
/**
 * One line of a session's timeline. `title` and `detail` are English (API clients, logs); `code`
 * and `args` name the title's content, `detail_code` and `detail_args` the detail's, for a screen
 * to word in its reader's language (`transition` with `{ from: 'open', to: 'pending' }`,
 * `attempt_finished` with `{ rail: 'card', status: 'declined' }` and `decline_reason` with
 * `{ reason: 'card_declined' }`). `detail_code` is null when the screen shows no detail (events,
 * notifications: their `detail` is the delivery's technical record) or there is none.
 */
export const TimelineEntry = z.object({
  at: IsoDateTime,
  kind: z.enum(['created', 'transition', 'attempt', 'slip', 'deposit', 'event', 'delivery']),
  code: z.enum(TIMELINE_CODES),
  args: TimelineArgs,
  title: z.string(),
  detail: z.string(),
  detail_code: z.enum(TIMELINE_DETAIL_CODES).nullable(),
  detail_args: TimelineArgs,
  ref: z.string().nullable(),
});
export type TimelineEntry = z.infer<typeof TimelineEntry>;
const InvoiceLineRow = z.object({ code: z.string(), name: z.string(), amount_minor: z.number().int(), currency: z.string(), remitted: z.boolean() });
export const SessionDetail = z.object({
  session: SessionRow.extend({ customer_email: z.string().nullable(), metadata: z.record(z.string(), z.unknown()) }),
  lines: z.array(InvoiceLineRow),
  timeline: z.array(TimelineEntry),
});
export type SessionDetail = z.infer<typeof SessionDetail>;
/** The invoice detail's sessions come a page at a time, newest first (an invoice may have hundreds of thousands). */
export const InvoiceDetailQuery = MerchantScopeQuery.extend({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().max(400).optional(),
});
export const InvoiceDetail = z.object({
  invoice: InvoiceSummary,
  lines: z.array(InvoiceLineRow),
  sessions: z.array(SessionRow),
  /** How many sessions the invoice has, and `cursor` for the next page of them (null on the last). */
  sessions_total: z.number().int().optional(),
  next_cursor: z.string().nullable().optional(),
});
export type InvoiceDetail = z.infer<typeof InvoiceDetail>;

export const PaymentsExportQuery = MerchantScopeQuery.extend({
  from: z.iso.datetime({ offset: true, error: 'must be an ISO 8601 date-time' }),
  to: z.iso.datetime({ offset: true, error: 'must be an ISO 8601 date-time' }),
});

/** Starts a payments export that can be followed and cancelled (`merchant_id` in the query, as for the CSV). */
export const PaymentsExportStart = z.object({
  from: z.iso.datetime({ offset: true, error: 'must be an ISO 8601 date-time' }),
  to: z.iso.datetime({ offset: true, error: 'must be an ISO 8601 date-time' }),
});
export const PaymentsExportIdParams = z.object({ export_id: z.string().min(1).max(80) });
/**
 * A payments export running on the server. `rows_written`: payment rows written so far (the header
 * not counted). `state`: `running`, then `completed` (the file can be fetched), `cancelled` (stopped
 * at the staff member's request: no file) or `failed` (`error` says why). Kept 15 minutes after it ends.
 */
export const PaymentsExportJob = z.object({
  id: z.string(),
  state: z.enum(['running', 'completed', 'cancelled', 'failed']),
  rows_written: z.number().int().nonnegative(),
  from: IsoDateTime,
  to: IsoDateTime,
  started_at: IsoDateTime,
  finished_at: IsoDateTime.nullable(),
  file_name: z.string(),
  error: z.string().nullable(),
});
export type PaymentsExportJob = z.infer<typeof PaymentsExportJob>;
export const PaymentsExportAnswer = z.object({ export: PaymentsExportJob });
export type PaymentsExportAnswer = z.infer<typeof PaymentsExportAnswer>;
