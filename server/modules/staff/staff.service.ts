import type { Db } from '../../db/database';
import type { Clock } from '../../lib/clock';
import { AppError, invalid } from '../../lib/errors';
import type { IdGenerator } from '../../lib/ids';
import { hashPassword } from '../../lib/password';

export const STAFF_ROLES = ['teller', 'supervisor', 'finance', 'admin'] as const;
export type StaffRole = (typeof STAFF_ROLES)[number];

export interface StaffInput {
  username: string;
  password: string;
  role: string;
  branchId?: string | undefined;
  merchantId?: string | undefined;
}

/**
 * Creates a back-office user. Tellers (and supervisors) may be bound to a branch (a teller's
 * deposits default to it; a supervisor's is informational), finance users must be bound
 * to one merchant (they see only its data); usernames are unique, case-insensitively.
 */
export async function createStaff(db: Db, clock: Clock, ids: IdGenerator, input: StaffInput) {
  const username = input.username.trim();
  if (!/^[A-Za-z0-9._@-]{3,64}$/.test(username)) throw invalid('username', 'must be 3 to 64 letters, digits or . _ @ -');
  if (input.password.length < 8 || input.password.length > 200) throw invalid('password', 'must be 8 to 200 characters');
  if (!STAFF_ROLES.includes(input.role as StaffRole)) throw invalid('role', `must be one of ${STAFF_ROLES.join(', ')}`);
  const role = input.role as StaffRole;
  if (input.branchId && role !== 'teller' && role !== 'supervisor') throw invalid('branch', 'only tellers and supervisors work at a branch');
  if (input.merchantId && role !== 'finance') throw invalid('merchant', 'only finance users are bound to a merchant');
  if (role === 'finance' && !input.merchantId) throw new AppError('MERCHANT_ID_REQUIRED', 'merchant: a finance user must be bound to a merchant (--merchant MERCHANT_ID)');
  if (input.branchId) {
    const branch = await db.selectFrom('branches').select('id').where('id', '=', input.branchId).executeTakeFirst();
    if (!branch) throw invalid('branch', `no branch ${input.branchId}`);
  }
  if (input.merchantId) {
    const merchant = await db.selectFrom('merchants').select('id').where('id', '=', input.merchantId).executeTakeFirst();
    if (!merchant) throw invalid('merchant', `no merchant ${input.merchantId}`);
  }
  const taken = await db.selectFrom('staff_users').select('id').where('username', '=', username).executeTakeFirst();
  if (taken) throw invalid('username', `${username} is already taken`);
  const id = ids.uuid();
  await db
    .insertInto('staff_users')
    .values({
      id,
      username,
      password_hash: await hashPassword(input.password),
      role,
      branch_id: input.branchId ?? null,
      merchant_id: input.merchantId ?? null,
      created_at: clock.now().toISOString(),
      disabled_at: null,
    })
    .execute();
  return { id, username, role };
}
