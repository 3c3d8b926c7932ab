import type { T } from '../../../ui/i18n';

/**
 * The audit trail in the reader's language: actions, target types and snapshot fields by their
 * codes (literal message ids, so the catalogue test sees every one). A code without a message (a
 * newer server) reads as its code, marked not to translate.
 */
const ACTION_IDS: Readonly<Record<string, string>> = {
  'auth.login': 'audit.action.auth.login',
  'auth.login_failed': 'audit.action.auth.login_failed',
  'auth.logout': 'audit.action.auth.logout',
  'deposit.record': 'audit.action.deposit.record',
  'deposit.approve': 'audit.action.deposit.approve',
  'deposit.reject': 'audit.action.deposit.reject',
  'revenue_line.activate': 'audit.action.revenue_line.activate',
  'revenue_line.deactivate': 'audit.action.revenue_line.deactivate',
  'integration.create': 'audit.action.integration.create',
  'integration.set_rails': 'audit.action.integration.set_rails',
  'integration.set_momo_countries': 'audit.action.integration.set_momo_countries',
  'api_key.create': 'audit.action.api_key.create',
  'api_key.revoke': 'audit.action.api_key.revoke',
  'webhook_endpoint.create': 'audit.action.webhook_endpoint.create',
  'webhook_endpoint.rotate_secret': 'audit.action.webhook_endpoint.rotate_secret',
  'webhook_endpoint.disable': 'audit.action.webhook_endpoint.disable',
  'webhook_endpoint.enable': 'audit.action.webhook_endpoint.enable',
  'webhook.redeliver': 'audit.action.webhook.redeliver',
  'webhook.recover': 'audit.action.webhook.recover',
  'fee_rule.set': 'audit.action.fee_rule.set',
  'bank.create': 'audit.action.bank.create',
  'bank.rename': 'audit.action.bank.rename',
  'bank.activate': 'audit.action.bank.activate',
  'bank.deactivate': 'audit.action.bank.deactivate',
  'branch.create': 'audit.action.branch.create',
  'branch.rename': 'audit.action.branch.rename',
  'branch.activate': 'audit.action.branch.activate',
  'branch.deactivate': 'audit.action.branch.deactivate',
  'staff.create': 'audit.action.staff.create',
  'staff.rename': 'audit.action.staff.rename',
  'staff.disable': 'audit.action.staff.disable',
  'staff.enable': 'audit.action.staff.enable',
  'staff.password_reset': 'audit.action.staff.password_reset',
  'staff.role_change': 'audit.action.staff.role_change',
  'auth.password_change': 'audit.action.auth.password_change',
  'auth.language_change': 'audit.action.auth.language_change',
  'cash_up.float': 'audit.action.cash_up.float',
  'cash_up.count': 'audit.action.cash_up.count',
  'cash_up.teller_sign': 'audit.action.cash_up.teller_sign',
  'cash_up.supervisor_sign': 'audit.action.cash_up.supervisor_sign',
  'sandbox.bank_transfer_confirm': 'audit.action.sandbox.bank_transfer_confirm',
  'exception.resolve': 'audit.action.exception.resolve',
  'exception.ignore': 'audit.action.exception.ignore',
  'exception.reopen': 'audit.action.exception.reopen',
};

const TARGET_IDS: Readonly<Record<string, string>> = {
  api_key: 'audit.target.api_key',
  bank: 'audit.target.bank',
  branch: 'audit.target.branch',
  cash_deposit: 'audit.target.cash_deposit',
  cash_up: 'audit.target.cash_up',
  integration: 'audit.target.integration',
  invoice: 'audit.target.invoice',
  payment_attempt: 'audit.target.payment_attempt',
  revenue_line: 'audit.target.revenue_line',
  staff_session: 'audit.target.staff_session',
  staff_user: 'audit.target.staff_user',
  webhook_endpoint: 'audit.target.webhook_endpoint',
  event: 'audit.target.event',
  webhook_deliveries: 'audit.target.webhook_deliveries',
};

/** Snapshot fields by name; amounts (`…_minor`) by the name without the suffix. */
const FIELD_IDS: Readonly<Record<string, string>> = {
  slip_status: 'audit.field.slip_status',
  session_status: 'audit.field.session_status',
  deposit_status: 'audit.field.deposit_status',
  exception_status: 'audit.field.exception_status',
  amount: 'audit.field.amount',
  slip_reference: 'audit.field.slip_reference',
  reason: 'audit.field.reason',
  merchant_name: 'audit.field.merchant_name',
  api_key_prefix: 'audit.field.api_key_prefix',
  webhook_url: 'audit.field.webhook_url',
  allowed_rails: 'audit.field.allowed_rails',
  rail: 'audit.field.rail',
  currency: 'audit.field.currency',
  percent_bps: 'audit.field.percent_bps',
  fixed: 'audit.field.fixed',
  cap: 'audit.field.cap',
  bearer: 'audit.field.bearer',
  username: 'audit.field.username',
  full_name: 'audit.field.full_name',
  role: 'audit.field.role',
  branch_id: 'audit.field.branch_id',
  merchant_id: 'audit.field.merchant_id',
  bank_id: 'audit.field.bank_id',
  integration_id: 'audit.field.integration_id',
  disabled: 'audit.field.disabled',
  forced: 'audit.field.forced',
  must_change_password: 'audit.field.must_change_password',
  expires_at: 'audit.field.expires_at',
  password_rehashed: 'audit.field.password_rehashed',
  first_run: 'audit.field.first_run',
  note: 'audit.field.note',
  code: 'audit.field.code',
  active: 'audit.field.active',
  payment_reference: 'audit.field.payment_reference',
  name: 'audit.field.name',
  prefix: 'audit.field.prefix',
  revoked_at: 'audit.field.revoked_at',
  url: 'audit.field.url',
  previous_secret_expires_at: 'audit.field.previous_secret_expires_at',
  status: 'audit.field.status',
  released_deliveries: 'audit.field.released_deliveries',
  deliveries: 'audit.field.deliveries',
  since: 'audit.field.since',
  until: 'audit.field.until',
  recovered: 'audit.field.recovered',
};

const asWords = (code: string) => code.replace(/_minor$/, '').replace(/[._]/g, ' ');

/** The words for a code, or null when there is no message for it (the caller shows the code). */
export function auditActionText(t: T, action: string): string | null {
  const id = ACTION_IDS[action];
  return id ? t(id) : null;
}

export function auditTargetText(t: T, type: string): string | null {
  const id = TARGET_IDS[type];
  return id ? t(id) : null;
}

export function auditFieldText(t: T, field: string): string | null {
  const id = FIELD_IDS[field.replace(/_minor$/, '')];
  return id ? t(id) : null;
}

/** A code with no message, as words a person can still read (not translated). */
export const codeWords = asWords;
