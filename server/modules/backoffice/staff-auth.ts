import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../../db/database';
import type { Clock } from '../../lib/clock';
import { AppError } from '../../lib/errors';
import { sha256Hex } from '../../lib/hash';
import type { IdGenerator } from '../../lib/ids';
import { hashPassword, verifyPassword } from '../../lib/password';
import { bearerToken } from '../auth/merchant-auth';
import type { StaffLoginResponse, StaffMe, StaffRole } from '../../../shared/schemas/backoffice';
import { recordAudit } from './audit.service';

/** A staff token lasts one working shift; signing in again issues a new one. */
export const STAFF_TOKEN_TTL_SECONDS = 12 * 3600;
/** Failed sign-ins allowed per (username, client address) within the window before 429. */
export const LOGIN_MAX_FAILURES = 5;
export const LOGIN_WINDOW_SECONDS = 15 * 60;

export interface StaffContext {
  id: string;
  username: string;
  role: StaffRole;
  branchId: string | null;
  merchantId: string | null;
  sessionId: string;
  expiresAt: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    staff?: StaffContext;
  }
}

export interface StaffAuthDeps {
  db: Db;
  clock: Clock;
  ids: IdGenerator;
}

const TOKEN_SHAPE = /^stf_[A-Za-z0-9]{43}$/;
const unauthorized = () =>
  new AppError('UNAUTHORIZED', 'sign in again: send Authorization: Bearer <token> with a token from POST /api/backoffice/v1/auth/login that is not expired or signed out');
const wrongCredentials = () => new AppError('UNAUTHORIZED', 'wrong username or password');

// A fixed hash to verify against when the username is unknown, so both answers take as long.
let dummyHash: Promise<string> | undefined;
const timingDummy = () => (dummyHash ??= hashPassword('not-a-real-password'));

const throttleKey = (username: string, ip: string) => `${username.trim().toLowerCase()}|${ip}`;

async function throttled(deps: StaffAuthDeps, key: string): Promise<number> {
  const now = deps.clock.now();
  const since = new Date(now.getTime() - LOGIN_WINDOW_SECONDS * 1000).toISOString();
  const rows = await deps.db
    .selectFrom('staff_login_failures')
    .select('at')
    .where('throttle_key', '=', key)
    .where('at', '>', since)
    .orderBy('at', 'desc')
    .limit(LOGIN_MAX_FAILURES)
    .execute();
  if (rows.length < LOGIN_MAX_FAILURES) return 0;
  // Locked until the oldest of the last LOGIN_MAX_FAILURES failures leaves the window.
  const oldest = rows[rows.length - 1]!.at;
  return Math.max(1, Math.ceil((new Date(oldest).getTime() + LOGIN_WINDOW_SECONDS * 1000 - now.getTime()) / 1000));
}

/**
 * Signs a staff member in: 200 with a fresh random token (only its SHA-256 is stored, with
 * an expiry); 401 for a wrong username or password; 429 after LOGIN_MAX_FAILURES failures
 * for the same username from the same address within LOGIN_WINDOW_SECONDS.
 */
export async function login(deps: StaffAuthDeps, username: string, password: string, ip: string): Promise<StaffLoginResponse> {
  const key = throttleKey(username, ip);
  const wait = await throttled(deps, key);
  if (wait > 0) {
    throw new AppError('RATE_LIMITED', `too many failed sign-ins for ${username.trim()}; try again in ${wait} s`, { retryAfterSeconds: wait });
  }
  const user = await deps.db.selectFrom('staff_users').selectAll().where('username', '=', username.trim()).executeTakeFirst();
  const ok = user ? await verifyPassword(password, user.password_hash) : (await verifyPassword(password, await timingDummy()), false);
  const now = deps.clock.now();
  const nowIso = now.toISOString();
  if (!user || !ok || user.disabled_at !== null) {
    await deps.db.transaction().execute(async (trx) => {
      await trx.insertInto('staff_login_failures').values({ id: deps.ids.uuid(), throttle_key: key, at: nowIso }).execute();
      await recordAudit(trx, deps, { id: user?.id ?? null, username: username.trim().slice(0, 64), role: user?.role ?? 'unknown', ip }, {
        action: 'auth.login_failed',
        targetType: 'staff_user',
        targetId: user?.id ?? null,
        after: { reason: !user ? 'unknown username' : user.disabled_at ? 'account disabled' : 'wrong password' },
      });
    });
    throw wrongCredentials();
  }
  const token = deps.ids.token('stf', 43);
  const expiresAt = new Date(now.getTime() + STAFF_TOKEN_TTL_SECONDS * 1000).toISOString();
  const sessionId = deps.ids.uuid();
  await deps.db.transaction().execute(async (trx) => {
    await trx
      .insertInto('staff_sessions')
      .values({ id: sessionId, staff_id: user.id, token_hash: sha256Hex(token), created_at: nowIso, expires_at: expiresAt, last_seen_at: nowIso, revoked_at: null, ip })
      .execute();
    await trx.deleteFrom('staff_login_failures').where('throttle_key', '=', key).execute();
    await recordAudit(trx, deps, { id: user.id, username: user.username, role: user.role, ip }, {
      action: 'auth.login',
      targetType: 'staff_session',
      targetId: sessionId,
      after: { expires_at: expiresAt },
    });
  });
  return { token, user: { id: user.id, username: user.username, role: user.role }, expires_at: expiresAt };
}

/** Resolves the bearer token to the signed-in staff member; every failure is the same 401. */
export async function authenticateStaff(deps: StaffAuthDeps, req: FastifyRequest): Promise<StaffContext> {
  const token = bearerToken(req);
  if (!token || !TOKEN_SHAPE.test(token)) throw unauthorized();
  const nowIso = deps.clock.now().toISOString();
  const row = await deps.db
    .selectFrom('staff_sessions as s')
    .innerJoin('staff_users as u', 'u.id', 's.staff_id')
    .select(['s.id as session_id', 's.expires_at', 'u.id', 'u.username', 'u.role', 'u.branch_id', 'u.merchant_id'])
    .where('s.token_hash', '=', sha256Hex(token))
    .where('s.revoked_at', 'is', null)
    .where('s.expires_at', '>', nowIso)
    .where('u.disabled_at', 'is', null)
    .executeTakeFirst();
  if (!row) throw unauthorized();
  return {
    id: row.id,
    username: row.username,
    role: row.role,
    branchId: row.branch_id,
    merchantId: row.merchant_id,
    sessionId: row.session_id,
    expiresAt: row.expires_at,
  };
}

/** Revokes the token the request was made with. */
export async function logout(deps: StaffAuthDeps, staff: StaffContext, ip: string): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    const nowIso = deps.clock.now().toISOString();
    await trx.updateTable('staff_sessions').set({ revoked_at: nowIso }).where('id', '=', staff.sessionId).where('revoked_at', 'is', null).execute();
    await recordAudit(trx, deps, { id: staff.id, username: staff.username, role: staff.role, ip }, {
      action: 'auth.logout',
      targetType: 'staff_session',
      targetId: staff.sessionId,
    });
  });
}

export async function me(deps: StaffAuthDeps, staff: StaffContext): Promise<StaffMe> {
  const branch = staff.branchId
    ? await deps.db
        .selectFrom('branches as br')
        .innerJoin('banks as b', 'b.id', 'br.bank_id')
        .select(['br.name', 'b.name as bank_name'])
        .where('br.id', '=', staff.branchId)
        .executeTakeFirst()
    : undefined;
  const merchant = staff.merchantId ? await deps.db.selectFrom('merchants').select('name').where('id', '=', staff.merchantId).executeTakeFirst() : undefined;
  return {
    user: {
      id: staff.id,
      username: staff.username,
      role: staff.role,
      branch_id: staff.branchId,
      branch_name: branch ? `${branch.bank_name}, ${branch.name}` : null,
      merchant_id: staff.merchantId,
      merchant_name: merchant?.name ?? null,
    },
    expires_at: staff.expiresAt,
  };
}

/** preValidation hook: only these roles may make the call (403 FORBIDDEN for the others). */
export function allow(...roles: StaffRole[]) {
  return async (req: FastifyRequest, _reply: FastifyReply): Promise<void> => {
    const staff = req.staff;
    if (!staff) throw unauthorized();
    if (!roles.includes(staff.role)) {
      throw new AppError('FORBIDDEN', `a ${staff.role} may not make this call (allowed: ${roles.join(', ')})`);
    }
  };
}

export function requireStaff(req: FastifyRequest): StaffContext {
  if (!req.staff) throw unauthorized();
  return req.staff;
}
