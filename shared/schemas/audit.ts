import { z } from 'zod';
import { IsoDateTime, ListOffset, ListTotal, MAX_PAGE_SIZE } from './common';

/** Back-office API shapes: the audit trail (`/api/backoffice/v1/audit`). */

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
