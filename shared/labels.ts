import { MOMO_NETWORKS, networkLabel } from './countries';
import type { DepositStatus } from './schemas/backoffice';
import type { SLIP_STATUSES } from './schemas/checkout';
import type { Rail, SessionStatus } from './schemas/common';

/**
 * One wording for the server (CSV exports) and the back office: audit actions in words.
 * An action without its own words (a newer one) still reads as words, from its code.
 */
const AUDIT_ACTION_LABELS: Record<string, string> = {
  'auth.login': 'Signed in',
  'auth.login_failed': 'Sign-in failed',
  'auth.logout': 'Signed out',
  'deposit.record': 'Recorded a cash deposit',
  'deposit.approve': 'Approved a cash deposit',
  'deposit.reject': 'Rejected a cash deposit',
  'cash_up.float': 'Entered the opening float of a cash-up',
  'cash_up.count': 'Counted the drawer for a cash-up',
  'cash_up.teller_sign': 'Signed off a cash-up as the teller',
  'cash_up.supervisor_sign': 'Signed off a cash-up as the supervisor',
  'revenue_line.activate': 'Activated a revenue line',
  'revenue_line.deactivate': 'Deactivated a revenue line',
  'integration.create': 'Created an integration',
  'integration.set_rails': 'Changed payment methods',
  'integration.set_momo_countries': 'Changed Mobile Money countries',
  'api_key.create': 'Created an API key',
  'api_key.revoke': 'Revoked an API key',
  'webhook_endpoint.create': 'Added a webhook endpoint',
  'webhook_endpoint.rotate_secret': 'Rotated a webhook signing secret',
  'webhook_endpoint.disable': 'Disabled a webhook endpoint',
  'webhook_endpoint.enable': 'Enabled a webhook endpoint',
  'webhook.redeliver': 'Redelivered a webhook event',
  'webhook.recover': 'Recovered failed webhook deliveries',
  'fee_rule.set': 'Changed a fee rule',
  'bank.create': 'Added a bank',
  'bank.rename': 'Renamed a bank',
  'bank.activate': 'Activated a bank',
  'bank.deactivate': 'Deactivated a bank',
  'branch.create': 'Added a branch',
  'branch.rename': 'Renamed a branch',
  'branch.activate': 'Activated a branch',
  'branch.deactivate': 'Deactivated a branch',
  'auth.language_change': 'Changed their language',
  'staff.create': 'Created a staff account',
  'staff.rename': 'Changed a staff member’s full name',
  'staff.disable': 'Disabled a staff account',
  'staff.enable': 'Enabled a staff account',
  'sandbox.bank_transfer_confirm': 'Confirmed a sandbox bank transfer',
  'exception.resolve': 'Resolved an exception',
  'exception.ignore': 'Ignored an exception',
  'exception.reopen': 'Reopened an exception',
};

/** "api_key.revoke" → "Revoked an API key"; an unknown "staff.reset_password" → "Staff: reset password". */
export function auditActionLabel(action: string): string {
  const known = AUDIT_ACTION_LABELS[action];
  if (known) return known;
  const [area = '', verb = ''] = action.split('.');
  const words = (s: string) => s.replace(/_/g, ' ');
  const head = words(area);
  return verb ? `${head.charAt(0).toUpperCase()}${head.slice(1)}: ${words(verb)}` : words(action);
}

/**
 * Payment methods in words. Two wordings on purpose: staff screens and CSV exports use the short
 * one ("Cash"); the payer, who must know where to go, reads the long one ("Cash at a bank branch").
 */
export const RAIL_LABELS: Readonly<Record<Rail, string>> = { momo: 'Mobile Money', card: 'Card', bank_transfer: 'Bank transfer', cash: 'Cash' };
export const RAIL_PAYER_LABELS: Readonly<Record<Rail, string>> = { ...RAIL_LABELS, cash: 'Cash at a bank branch' };

/** Mobile Money networks, by the operator codes of the contract (every country's: shared/countries.ts). */
export const OPERATOR_LABELS: Readonly<Record<string, string>> = Object.fromEntries(MOMO_NETWORKS.map((n) => [n, networkLabel(n)]));

/** "cash" → "Cash"; an unknown rail reads as its code, a missing one as a dash. */
export function railLabel(rail: string | null | undefined): string {
  return rail ? ((RAIL_LABELS as Readonly<Record<string, string>>)[rail] ?? rail) : '—';
}

/** A checkout session's state as staff read it ("failed" is a checkout closed without payment). */
export const SESSION_STATUS_LABELS: Readonly<Record<SessionStatus, string>> = {
  open: 'Not paid yet',
  pending: 'In progress',
  success: 'Paid',
  failed: 'Closed, not paid',
  expired: 'Expired',
};

/** A cash deposit's review state, short (tables, cash-up counts). */
export const DEPOSIT_STATUS_LABELS: Readonly<Record<DepositStatus, string>> = {
  under_review: 'Waiting for review',
  approved: 'Approved',
  rejected: 'Rejected',
};

/** A cash slip's state as staff read it. */
type SlipStatus = (typeof SLIP_STATUSES)[number];
export const SLIP_STATUS_LABELS: Readonly<Record<SlipStatus, string>> = {
  active: 'Not paid yet',
  under_review: 'Deposit under review',
  used: 'Paid',
  voided: 'Voided',
  expired: 'Expired',
};

/** A finance exception's state as a work item. */
const EXCEPTION_STATUS_LABELS: Readonly<Record<'open' | 'resolved' | 'ignored', string>> = { open: 'Open', resolved: 'Resolved', ignored: 'Ignored' };

const STATE_FIELDS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  exception_status: EXCEPTION_STATUS_LABELS,
  session_status: SESSION_STATUS_LABELS,
  deposit_status: DEPOSIT_STATUS_LABELS,
  slip_status: SLIP_STATUS_LABELS,
};

/**
 * A value of an audit row's before/after in words, for the fields that hold a state or a rail
 * (`deposit_status: under_review` → "Waiting for review"); undefined for any other field or an
 * unknown value, which the reader shows as it is.
 */
export function auditValueLabel(field: string, value: unknown): string | undefined {
  if (typeof value === 'string') {
    if (field === 'rail' || field === 'paid_rail') return (RAIL_LABELS as Readonly<Record<string, string>>)[value];
    return STATE_FIELDS[field]?.[value];
  }
  if (field === 'allowed_rails' && Array.isArray(value) && value.every((r) => typeof r === 'string')) return value.map((r) => railLabel(r)).join(', ');
  return undefined;
}

/** Card brands as a person writes them ("visa" → "Visa"); an unknown brand reads as its code, capitalised. */
const CARD_BRAND_LABELS: Readonly<Record<string, string>> = {
  visa: 'Visa',
  mastercard: 'Mastercard',
  amex: 'American Express',
  verve: 'Verve',
  discover: 'Discover',
  unionpay: 'UnionPay',
};
export function cardBrandLabel(brand: string | null | undefined): string {
  if (!brand) return 'Card';
  return CARD_BRAND_LABELS[brand.toLowerCase()] ?? `${brand.charAt(0).toUpperCase()}${brand.slice(1)}`;
}

/** "Visa ending 0002"; without the last digits, the brand alone. */
export function cardLabel(brand: string | null | undefined, last4: string | null | undefined): string {
  return last4 ? `${cardBrandLabel(brand)} ending ${last4}` : cardBrandLabel(brand);
}

/** Webhook event types in words (what the merchant was told). */
const EVENT_TYPE_LABELS: Readonly<Record<string, string>> = {
  'checkout.session.completed': 'payment completed',
  'checkout.session.failed': 'checkout closed without payment',
  'checkout.session.expired': 'checkout expired without payment',
};
export function eventTypeLabel(type: string): string {
  return EVENT_TYPE_LABELS[type] ?? type.replace(/^checkout\./, '').replace(/[._]/g, ' ');
}

/** A provider's decline reason in words ("card_declined" → "Card declined"). */
export function declineReasonLabel(reason: string): string {
  const s = reason.replace(/[_:]+/g, ' ').trim().toLowerCase();
  return `${s.charAt(0).toUpperCase()}${s.slice(1)}`;
}
