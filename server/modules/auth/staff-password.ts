import { AppError, invalid, notFound } from '../../lib/errors';
import { hashPassword, verifyPassword } from '../../lib/password';
import { checkPassword } from './password-policy';
import { checkRoleBindings } from './staff.service';
import { recordAudit, type Actor } from '../audit';
import { reserveGuess, type StaffAuthDeps } from './staff-auth';
import type { StaffContext } from '../../http/staff-access';

/** Wrong current passwords allowed per user within the sign-in window: a stolen token cannot be used to guess it. */
const PASSWORD_CHANGE_MAX_FAILURES = 5;

/**
 * A staff member replaces their own password (POST /auth/password): the current one is
 * checked (throttled like sign-in), the new one must pass the policy, the forced-change flag
 * clears, and every other session of the user is signed out.
 */
export async function changeOwnPassword(
  deps: StaffAuthDeps,
  staff: StaffContext,
  ip: string,
  body: { current_password: string; new_password: string },
): Promise<void> {
  checkPassword(body.new_password, staff.username, 'new_password');
  if (body.new_password === body.current_password) throw invalid('new_password', 'must differ from the current password');
  const rule = { key: `pwchange:${staff.id}`, max: PASSWORD_CHANGE_MAX_FAILURES };
  await reserveGuess(deps, [rule], 'password changes');
  const user = await deps.db.selectFrom('staff_users').select(['password_hash']).where('id', '=', staff.id).executeTakeFirstOrThrow();
  if (!(await verifyPassword(body.current_password, user.password_hash))) throw invalid('current_password', 'is not your current password');
  const hash = await hashPassword(body.new_password);
  const nowIso = deps.clock.now().toISOString();
  await deps.db.transaction().execute(async (trx) => {
    await trx.updateTable('staff_users').set({ password_hash: hash, must_change_password: 0, password_changed_at: nowIso }).where('id', '=', staff.id).execute();
    await trx.updateTable('staff_sessions').set({ revoked_at: nowIso }).where('staff_id', '=', staff.id).where('id', '!=', staff.sessionId).where('revoked_at', 'is', null).execute();
    await trx.deleteFrom('staff_login_failures').where('throttle_key', '=', rule.key).execute();
    await recordAudit(trx, deps, { id: staff.id, username: staff.username, role: staff.role, ip }, {
      action: 'auth.password_change',
      targetType: 'staff_user',
      targetId: staff.id,
      after: { forced: staff.mustChangePassword },
    });
  });
}

/** A staff member chooses the language they read the back office in (POST /me/language); audited when it changes. */
export async function setOwnLanguage(deps: StaffAuthDeps, staff: StaffContext, ip: string, language: 'en' | 'fr' | null): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    const u = await trx.selectFrom('staff_users').select(['language']).where('id', '=', staff.id).executeTakeFirstOrThrow();
    const before = u.language ?? null;
    if (before === language) return;
    await trx.updateTable('staff_users').set({ language }).where('id', '=', staff.id).execute();
    await recordAudit(trx, deps, { id: staff.id, username: staff.username, role: staff.role, ip }, {
      action: 'auth.language_change',
      targetType: 'staff_user',
      targetId: staff.id,
      before: { language: before },
      after: { language },
    });
  });
}

async function findStaff(deps: StaffAuthDeps, staffId: string) {
  const u = await deps.db.selectFrom('staff_users').select(['id', 'username', 'role', 'branch_id', 'merchant_id']).where('id', '=', staffId).executeTakeFirst();
  if (!u) throw notFound(`staff user ${staffId}`);
  return u;
}

/**
 * An admin sets a temporary password: the user is signed out everywhere and must choose
 * their own at the next sign-in. The password itself is never audited.
 */
export async function adminResetPassword(deps: StaffAuthDeps, actor: Actor, staffId: string, password: string): Promise<void> {
  if (staffId === actor.id) throw new AppError('STATE_CONFLICT', 'you cannot reset your own password here; use Change password');
  const u = await findStaff(deps, staffId);
  checkPassword(password, u.username);
  const hash = await hashPassword(password);
  const nowIso = deps.clock.now().toISOString();
  await deps.db.transaction().execute(async (trx) => {
    await trx.updateTable('staff_users').set({ password_hash: hash, must_change_password: 1, password_changed_at: nowIso }).where('id', '=', staffId).execute();
    await trx.updateTable('staff_sessions').set({ revoked_at: nowIso }).where('staff_id', '=', staffId).where('revoked_at', 'is', null).execute();
    await recordAudit(trx, deps, actor, {
      action: 'staff.password_reset',
      targetType: 'staff_user',
      targetId: staffId,
      after: { username: u.username, must_change_password: true },
    });
  });
}

/**
 * An admin changes a user's role (and its branch or merchant binding). The user is signed
 * out so every screen they see matches the new role. An admin cannot change their own role,
 * and the last active admin cannot be demoted: someone must be able to administer.
 */
export async function adminChangeRole(
  deps: StaffAuthDeps,
  actor: Actor,
  staffId: string,
  input: { role: string; branch_id?: string | undefined; merchant_id?: string | undefined },
): Promise<void> {
  if (staffId === actor.id) throw new AppError('STATE_CONFLICT', 'you cannot change your own role');
  const u = await findStaff(deps, staffId);
  const nowIso = deps.clock.now().toISOString();
  await deps.db.transaction().execute(async (trx) => {
    const role = await checkRoleBindings(trx, input.role, input.branch_id, input.merchant_id);
    if (u.role === 'admin' && role !== 'admin') {
      const others = await trx.selectFrom('staff_users').select('id').where('role', '=', 'admin').where('disabled_at', 'is', null).where('id', '!=', staffId).executeTakeFirst();
      if (!others) throw new AppError('STATE_CONFLICT', 'this is the last active admin; make someone else admin first');
    }
    const after = { role, branch_id: input.branch_id ?? null, merchant_id: input.merchant_id ?? null };
    await trx.updateTable('staff_users').set(after).where('id', '=', staffId).execute();
    await trx.updateTable('staff_sessions').set({ revoked_at: nowIso }).where('staff_id', '=', staffId).where('revoked_at', 'is', null).execute();
    await recordAudit(trx, deps, actor, {
      action: 'staff.role_change',
      targetType: 'staff_user',
      targetId: staffId,
      merchantId: input.merchant_id ?? u.merchant_id,
      before: { username: u.username, role: u.role, branch_id: u.branch_id, merchant_id: u.merchant_id },
      after: { username: u.username, ...after },
    });
  });
}
