import type { Generated } from 'kysely';

/** Row types of staff accounts and sessions, server secrets and the audit trail (the Database of schema.ts). */

/** A first-run setup link (migration 0044): the SHA-256 of its token (hex), until when it works, and when it was used. */
export interface SetupLinksTable {
  id: string;
  token_hash: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

export interface StaffUsersTable {
  id: string;
  username: string;
  password_hash: string;
  role: 'teller' | 'supervisor' | 'finance' | 'admin';
  branch_id: string | null;
  merchant_id: string | null;
  created_at: string;
  disabled_at: string | null;
  /** 1 after an admin creates or resets the account: the next sign-in must choose a new password. */
  must_change_password: Generated<number>;
  password_changed_at: string | null;
  /** The person's full name (migration 0039): printed on receipts; null for accounts made before. */
  full_name?: string | null;
  /** The language chosen in the staff menu (migration 0042); null: the browser's. */
  language?: 'en' | 'fr' | null;
}

export interface StaffSessionsTable {
  id: string;
  staff_id: string;
  /** SHA-256 of the bearer token; the token itself is never stored. */
  token_hash: string;
  created_at: string;
  expires_at: string;
  last_seen_at: string;
  revoked_at: string | null;
  ip: string | null;
}

export interface StaffLoginFailuresTable {
  id: string;
  throttle_key: string;
  at: string;
}

/** Random secrets of this database, made by the migrations (the sign-in throttle's HMAC key: auth/username.ts). */
export interface ServerSecretsTable {
  name: string;
  value: string;
}

export interface AuditLogTable {
  id: string;
  at: string;
  actor_id: string | null;
  actor_username: string;
  actor_role: string;
  action: string;
  target_type: string;
  target_id: string | null;
  merchant_id: string | null;
  /** JSON of the state before the action, or null. */
  before: string | null;
  /** JSON of the state after the action, or null. */
  after: string | null;
  ip: string | null;
}

/** Each audit prune (`db:prune`): rows older than `cutoff` may be deleted (migration 0014). Append-only. */
export interface AuditPruneMarksTable {
  id: string;
  cutoff: string;
  recorded_at: string;
  reason: string;
}
