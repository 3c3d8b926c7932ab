import { USERNAME_SHAPE, usernameAsStored } from './username';
import type { Kysely, Transaction } from 'kysely';
import type { Db } from '../../db/database';
import type { Database } from '../../db/schema';
import type { Clock } from '../../lib/clock';
import { AppError, invalid } from '../../lib/errors';
import type { IdGenerator } from '../../lib/ids';
import { hashPassword } from '../../lib/password';
import { checkPassword } from './password-policy';

const STAFF_ROLES = ['teller', 'supervisor', 'finance', 'admin'] as const;
export type StaffRole = (typeof STAFF_ROLES)[number];

export interface StaffInput {
  username: string;
  password: string;
  role: string;
  branchId?: string | undefined;
  merchantId?: string | undefined;
  /** Set when an admin chose the password: the user must replace it at first sign-in. */
  mustChangePassword?: boolean;
  /** The person's full name, printed on receipts (required by the admin screen; optional on the CLI). */
  fullName?: string | undefined;
}

type Q = Kysely<Database> | Transaction<Database>;

/**
 * Checks a role and its bindings: tellers (and supervisors) may be bound to a branch (a
 * teller's deposits default to it; a supervisor's is informational), finance users must be
 * bound to one merchant (they see only its data), nobody else is bound to either.
 */
export async function checkRoleBindings(q: Q, roleInput: string, branchId: string | null | undefined, merchantId: string | null | undefined): Promise<StaffRole> {
  if (!STAFF_ROLES.includes(roleInput as StaffRole)) throw invalid('role', `must be one of ${STAFF_ROLES.join(', ')}`);
  const role = roleInput as StaffRole;
  if (branchId && role !== 'teller' && role !== 'supervisor') throw invalid('branch', 'only tellers and supervisors work at a branch');
  if (merchantId && role !== 'finance') throw invalid('merchant', 'only finance users are bound to a merchant');
  if (role === 'finance' && !merchantId) throw new AppError('MERCHANT_ID_REQUIRED', 'merchant: a finance user must be bound to a merchant (--merchant MERCHANT_ID)');
  if (branchId) {
    const branch = await q.selectFrom('branches').select('id').where('id', '=', branchId).executeTakeFirst();
    if (!branch) throw invalid('branch', `no branch ${branchId}`);
  }
  if (merchantId) {
    const merchant = await q.selectFrom('merchants').select('id').where('id', '=', merchantId).executeTakeFirst();
    if (!merchant) throw invalid('merchant', `no merchant ${merchantId}`);
  }
  return role;
}

/** Creates a back-office user; usernames are unique, case-insensitively. */
export async function createStaff(db: Db, clock: Clock, ids: IdGenerator, input: StaffInput) {
  // The one normalisation of usernames (username.ts): sign-in and its throttle fold the same way.
  const username = usernameAsStored(input.username);
  if (!USERNAME_SHAPE.test(username)) throw invalid('username', 'must be 3 to 64 letters, digits or . _ @ -');
  const role = await checkRoleBindings(db, input.role, input.branchId, input.merchantId);
  const taken = await db.selectFrom('staff_users').select('id').where('username', '=', username).executeTakeFirst();
  if (taken) throw invalid('username', `${username} is already taken`);
  checkPassword(input.password, username);
  const id = ids.uuid();
  const now = clock.now().toISOString();
  await db
    .insertInto('staff_users')
    .values({
      id,
      username,
      password_hash: await hashPassword(input.password),
      role,
      branch_id: input.branchId ?? null,
      merchant_id: input.merchantId ?? null,
      created_at: now,
      disabled_at: null,
      must_change_password: input.mustChangePassword ? 1 : 0,
      password_changed_at: now,
      full_name: input.fullName?.trim() || null,
    })
    .execute();
  return { id, username, role };
}
