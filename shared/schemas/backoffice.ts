import { z } from 'zod';
import { CashDepositSlipResponse } from './checkout';
import { IsoDateTime, PaidAmountMinor, ListOffset, ListTotal, MAX_PAGE_SIZE, QueryBoolean, Rail, requiredOr, SessionStatus } from './common';

/**
 * Back-office API (`/api/backoffice/v1`): request and response shapes shared by
 * the server (validation, response serialisation) and the React back office (types).
 */
/** Every action the audit trail records (the audit screen's filter lists exactly these). */
export const AUDIT_ACTIONS = [
  'auth.login',
  'auth.login_failed',
  'auth.logout',
  'deposit.record',
  'deposit.approve',
  'deposit.reject',
  'cash_up.float',
  'cash_up.count',
  'cash_up.teller_sign',
  'cash_up.supervisor_sign',
  'revenue_line.activate',
  'revenue_line.deactivate',
  'integration.create',
  'integration.set_rails',
  'integration.set_momo_countries',
  'api_key.create',
  'api_key.revoke',
  'webhook_endpoint.create',
  'webhook_endpoint.rotate_secret',
  'webhook_endpoint.disable',
  'webhook_endpoint.enable',
  'webhook.redeliver',
  'webhook.recover',
  'fee_rule.set',
  'bank.create',
  'bank.rename',
  'bank.activate',
  'bank.deactivate',
  'branch.create',
  'branch.rename',
  'branch.activate',
  'branch.deactivate',
  'staff.create',
  'staff.rename',
  'staff.disable',
  'staff.enable',
  'staff.password_reset',
  'staff.role_change',
  'auth.password_change',
  'auth.language_change',
  'sandbox.bank_transfer_confirm',
  'exception.resolve',
  'exception.ignore',
  'exception.reopen',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export const STAFF_ROLES = ['teller', 'supervisor', 'finance', 'admin'] as const;
export const StaffRole = z.enum(STAFF_ROLES);
export type StaffRole = z.infer<typeof StaffRole>;

const text = (max: number) =>
  z
    .string({ error: requiredOr('must be a string') })
    .trim()
    .min(1, { error: 'must not be empty' })
    .max(max, { error: `must be at most ${max} characters` });

// ---------------------------------------------------------------- auth
export const StaffLogin = z.object({
  username: z.string({ error: requiredOr('must be a string') }).min(1, { error: 'must not be empty' }).max(64, { error: 'must be at most 64 characters' }),
  password: z.string({ error: requiredOr('must be a string') }).min(1, { error: 'must not be empty' }).max(200, { error: 'must be at most 200 characters' }),
});
const StaffUser = z.object({ id: z.string(), username: z.string(), role: StaffRole });
type StaffUser = z.infer<typeof StaffUser>;
/** `must_change_password`: the account was created or reset by an admin; only POST /auth/password, GET /me and logout work until it is changed. */
export const StaffLoginResponse = z.object({ token: z.string(), user: StaffUser, expires_at: IsoDateTime, must_change_password: z.boolean() });
export type StaffLoginResponse = z.infer<typeof StaffLoginResponse>;
/** The languages the back office speaks (renderer/ui/i18n). */
const STAFF_LANGUAGES = ['en', 'fr'] as const;
const StaffLanguage = z.enum(STAFF_LANGUAGES, { error: requiredOr('must be en or fr') });
type StaffLanguage = z.infer<typeof StaffLanguage>;
export const StaffMe = z.object({
  user: StaffUser.extend({
    /** Chosen in the staff menu; null until chosen (the back office then follows the browser). */
    language: StaffLanguage.nullable(),
    branch_id: z.string().nullable(),
    branch_name: z.string().nullable(),
    merchant_id: z.string().nullable(),
    merchant_name: z.string().nullable(),
  }),
  expires_at: IsoDateTime,
  must_change_password: z.boolean(),
  /** The instance's time zone (TZ, an IANA name; Africa/Accra by default): staff screens name it beside the times they show. Every time the API returns is UTC. */
  time_zone: z.string(),
});
export const PasswordChange = z.object({
  current_password: z.string({ error: requiredOr('must be a string') }).min(1, { error: 'must not be empty' }).max(200, { error: 'must be at most 200 characters' }),
  new_password: z.string({ error: requiredOr('must be a string') }).min(1, { error: 'must not be empty' }).max(200, { error: 'must be at most 200 characters' }),
});
export type PasswordChange = z.infer<typeof PasswordChange>;
export type StaffMe = z.infer<typeof StaffMe>;
/** POST /me/language: the staff member's own language; null forgets the choice. */
export const LanguageChange = z.strictObject({ language: StaffLanguage.nullable() });
export type LanguageChange = z.infer<typeof LanguageChange>;

// ---------------------------------------------------------------- cash desk
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

// ---------------------------------------------------------------- finance
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
 * One line of a session's timeline. `title` is English (API clients, logs); `code` and `args`
 * name the same thing for a screen to word in its reader's language (`transition` with
 * `{ from: 'open', to: 'pending' }`, `attempt_finished` with `{ rail: 'card', status: 'succeeded' }`).
 */
export const TimelineEntry = z.object({
  at: IsoDateTime,
  kind: z.enum(['created', 'transition', 'attempt', 'slip', 'deposit', 'event', 'delivery']),
  code: z.enum(TIMELINE_CODES),
  args: z.record(z.string(), z.union([z.string(), z.number(), z.null()])),
  title: z.string(),
  detail: z.string(),
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

// ---------------------------------------------------------------- audit
/** What an audit entry recorded of its target: always an object of named fields. */
const AuditSnapshot = z.record(z.string(), z.unknown());
export const AuditEntry = z.object({
  id: z.string(),
  at: IsoDateTime,
  actor: z.object({ id: z.string().nullable(), username: z.string(), role: z.string() }),
  action: z.string(),
  target_type: z.string(),
  target_id: z.string().nullable(),
  /** The target as staff know it ("Accra Water (test integration)"); null when it no longer exists. */
  target_name: z.string().nullable(),
  merchant_id: z.string().nullable(),
  before: AuditSnapshot.nullable().describe('The recorded fields before the action, or null'),
  after: AuditSnapshot.nullable().describe('The recorded fields after the action, or null'),
  ip: z.string().nullable(),
});
export type AuditEntry = z.infer<typeof AuditEntry>;
export const AUDIT_SORTS = ['at', 'action', 'actor', 'target_type'] as const;
export const AuditFilter = z.object({
  action: z.string().max(80).optional(),
  actor: z.string().max(64).optional(),
  target_id: z.string().max(120).optional(),
  /** Entries at or after `from` and before `to` (ISO date-times; the screen sends local days). */
  from: z.iso.datetime({ offset: true, error: 'must be an ISO 8601 date-time' }).optional(),
  to: z.iso.datetime({ offset: true, error: 'must be an ISO 8601 date-time' }).optional(),
});
export const AuditQuery = AuditFilter.extend({
  sort: z.enum(AUDIT_SORTS).default('at'),
  dir: z.enum(['asc', 'desc']).default('desc'),
  limit: z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).default(50),
  /** At most MAX_OFFSET: it costs what it skips (the rows are read and dropped); deep pages go by `cursor`. */
  offset: ListOffset.default(0),
  /** `next_cursor` of the previous page (sort by `at` only, same `dir`, not with offset). */
  cursor: z.string().max(400).optional(),
});
/** `next_cursor`: the page after this one by `cursor` (null on the last page, and for sorts other than `at`). */
export const AuditList = z.object({ entries: z.array(AuditEntry), ...ListTotal, next_cursor: z.string().nullable() });
export type AuditList = z.infer<typeof AuditList>;
