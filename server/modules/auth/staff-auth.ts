import type { FastifyRequest } from 'fastify';
import type { Db } from '../../db/database';
import type { Clock } from '../../lib/clock';
import { AppError } from '../../lib/errors';
import { sha256Hex } from '../../lib/hash';
import type { IdGenerator } from '../../lib/ids';
import { hashPassword, needsRehash, verifyPassword } from '../../lib/password';
import { bearerToken } from './merchant-auth';
import type { StaffLoginResponse, StaffMe } from '../../../shared/schemas/backoffice';
import { recordAudit } from '../audit';
import { staffUnauthorized, type StaffContext } from '../../http/staff-access';
import { checkCsrf, cookieToken } from './staff-cookie';
import { couldBeUsername, throttleName, throttleSecret, usernameKey } from './username';

/** A staff token lasts one working shift; signing in again issues a new one. */
const STAFF_TOKEN_TTL_SECONDS = 12 * 3600;
/** Failed sign-ins allowed per (username, client address) within the window before 429. */
export const LOGIN_MAX_FAILURES = 5;
/**
 * Failed sign-ins allowed per client address, whatever the username, before 429: stops one
 * machine trying a password against every account, yet leaves room for a branch whose
 * tellers share one address.
 */
export const LOGIN_MAX_FAILURES_PER_ADDRESS = 40;
const LOGIN_WINDOW_SECONDS = 15 * 60;
/** A sign-in's `last_seen_at` is written at most this often (a call within it does not write). */
const LAST_SEEN_EVERY_SECONDS = 60;

export interface StaffAuthDeps {
  db: Db;
  clock: Clock;
  ids: IdGenerator;
}

const TOKEN_SHAPE = /^stf_[A-Za-z0-9]{43}$/;
const wrongCredentials = () => new AppError('UNAUTHORIZED', 'wrong username or password');

// A fixed hash to verify against when the username is unknown, so both answers take as long.
let dummyHash: Promise<string> | undefined;
const timingDummy = () => (dummyHash ??= hashPassword('not-a-real-password'));

export interface ThrottleRule {
  key: string;
  max: number;
  /**
   * The rule counts only against a guess whose `gatedBy` key already has a failure in the
   * window: the per-address limit never locks out a username that has not failed from there.
   */
  gatedBy?: string;
}

/**
 * The two sign-in limits (docs/security.md, "Sign-in throttling"): per username from this
 * address first, then per address, the latter only for a username that has already failed
 * from there. So guesses spread over made-up names cannot lock a branch's tellers out, while
 * a second guess at any name from a busy address is refused. The username is stored as a keyed
 * hash of its normalised form (username.ts), never as typed.
 */
const loginRules = (secret: string, username: string, ip: string): ThrottleRule[] => {
  const user = `user:${throttleName(secret, username)}|${ip}`;
  return [
    { key: user, max: LOGIN_MAX_FAILURES },
    { key: `ip:${ip}`, max: LOGIN_MAX_FAILURES_PER_ADDRESS, gatedBy: user },
  ];
};

/**
 * Reserves one guess under every rule, or answers 429 when a rule is spent. Counting and
 * recording happen in one immediate transaction, before the password is checked: requests
 * sent at once queue on it, so only `max` guesses per window ever reach scrypt, however
 * they arrive. A reservation stays as the failure record unless the guess succeeds.
 * Returns the ids of the rows it added and the rules (made from the database's throttle secret
 * when `rules` is a function of it).
 */
export async function reserveGuess(
  deps: StaffAuthDeps,
  rules: ThrottleRule[] | ((secret: string) => ThrottleRule[]),
  what: string,
): Promise<{ ids: string[]; rules: ThrottleRule[] }> {
  const now = deps.clock.now();
  const since = new Date(now.getTime() - LOGIN_WINDOW_SECONDS * 1000).toISOString();
  const wait = await deps.db.transaction().execute(async (trx) => {
    const list = typeof rules === 'function' ? rules(await throttleSecret(trx)) : rules;
    let longest = 0;
    for (const rule of list) {
      if (rule.gatedBy !== undefined) {
        const failed = await trx.selectFrom('staff_login_failures').select('id').where('throttle_key', '=', rule.gatedBy).where('at', '>', since).limit(1).executeTakeFirst();
        if (!failed) continue;
      }
      const rows = await trx
        .selectFrom('staff_login_failures')
        .select('at')
        .where('throttle_key', '=', rule.key)
        .where('at', '>', since)
        .orderBy('at', 'desc')
        .limit(rule.max)
        .execute();
      if (rows.length < rule.max) continue;
      // Locked until the oldest of the last `max` guesses leaves the window.
      const oldest = rows[rows.length - 1]!.at;
      longest = Math.max(longest, Math.ceil((new Date(oldest).getTime() + LOGIN_WINDOW_SECONDS * 1000 - now.getTime()) / 1000), 1);
    }
    if (longest > 0) return longest;
    // Guesses older than the window count for nothing: prune them so the table stays small.
    await trx.deleteFrom('staff_login_failures').where('at', '<=', since).execute();
    const ids: string[] = [];
    for (const rule of list) {
      const id = deps.ids.uuid();
      ids.push(id);
      await trx.insertInto('staff_login_failures').values({ id, throttle_key: rule.key, at: now.toISOString() }).execute();
    }
    return { ids, list };
  });
  if (typeof wait === 'number') throw new AppError('RATE_LIMITED', `too many failed ${what}; try again in ${wait} s`, { retryAfterSeconds: wait });
  return { ids: wait.ids, rules: wait.list };
}

/**
 * Signs a staff member in: 200 with a fresh random token (only its SHA-256 is stored, with
 * an expiry); 401 for a wrong username or password; 429 once LOGIN_MAX_FAILURES guesses for
 * the same username from the same address (or LOGIN_MAX_FAILURES_PER_ADDRESS from the
 * address) fall within LOGIN_WINDOW_SECONDS. A hash of an older, cheaper cost is replaced.
 */
export async function login(deps: StaffAuthDeps, username: string, password: string, ip: string): Promise<StaffLoginResponse> {
  const reserved = await reserveGuess(deps, (secret) => loginRules(secret, username, ip), 'sign-ins');
  const userKey = reserved.rules[0]!.key;
  // One normalisation (username.ts): a name that cannot be a username is never looked up, so the
  // engines' own case folding (citext follows the database's locale) never decides who signs in.
  const key = usernameKey(username);
  const user = couldBeUsername(key) ? await deps.db.selectFrom('staff_users').selectAll().where('username', '=', key).executeTakeFirst() : undefined;
  const ok = user ? await verifyPassword(password, user.password_hash) : (await verifyPassword(password, await timingDummy()), false);
  if (!user || !ok || user.disabled_at !== null) {
    // Someone may have typed their password into the username field: an unknown name is
    // never written down, only that it was unknown.
    await recordAudit(deps.db, deps, { id: user?.id ?? null, username: user ? user.username : '(unknown user)', role: user?.role ?? 'unknown', ip }, {
      action: 'auth.login_failed',
      targetType: 'staff_user',
      targetId: user?.id ?? null,
      after: { reason: !user ? 'unknown username' : user.disabled_at ? 'account disabled' : 'wrong password' },
    });
    throw wrongCredentials();
  }
  // Computed outside the transaction: scrypt at full cost takes a few hundred milliseconds.
  const rehashed = needsRehash(user.password_hash) ? await hashPassword(password) : null;
  const now = deps.clock.now();
  const nowIso = now.toISOString();
  const token = deps.ids.token('stf', 43);
  const expiresAt = new Date(now.getTime() + STAFF_TOKEN_TTL_SECONDS * 1000).toISOString();
  const sessionId = deps.ids.uuid();
  await deps.db.transaction().execute(async (trx) => {
    await trx
      .insertInto('staff_sessions')
      .values({ id: sessionId, staff_id: user.id, token_hash: sha256Hex(token), created_at: nowIso, expires_at: expiresAt, last_seen_at: nowIso, revoked_at: null, ip })
      .execute();
    if (rehashed) await trx.updateTable('staff_users').set({ password_hash: rehashed }).where('id', '=', user.id).execute();
    // Success clears this username's count from this address, and this guess from the address's.
    await trx.deleteFrom('staff_login_failures').where('throttle_key', '=', userKey).execute();
    await trx.deleteFrom('staff_login_failures').where('id', 'in', reserved.ids).execute();
    await recordAudit(trx, deps, { id: user.id, username: user.username, role: user.role, ip }, {
      action: 'auth.login',
      targetType: 'staff_session',
      targetId: sessionId,
      after: { expires_at: expiresAt, ...(rehashed ? { password_rehashed: true } : {}) },
    });
  });
  return { token, user: { id: user.id, username: user.username, role: user.role }, expires_at: expiresAt, must_change_password: user.must_change_password === 1 };
}

/**
 * Resolves the bearer token to the signed-in staff member; every failure is the same 401.
 * Idle expiry is the server's: a sign-in with no call for `staffIdleTimeoutS` (the last one
 * recorded in `last_seen_at`, moved at most once a LAST_SEEN_EVERY_SECONDS) answers 401 like
 * an expired one, whatever the page's own timer did.
 */
export async function authenticateStaff(deps: StaffAuthDeps & { config: { staffIdleTimeoutS: number } }, req: FastifyRequest): Promise<StaffContext> {
  // The Authorization header wins: API clients and tests; the back office page uses the cookie.
  const bearer = bearerToken(req);
  const token = bearer ?? cookieToken(req);
  if (!token || !TOKEN_SHAPE.test(token)) throw staffUnauthorized();
  if (bearer === undefined) checkCsrf(req);
  const now = deps.clock.now();
  const nowIso = now.toISOString();
  const idleSince = new Date(now.getTime() - deps.config.staffIdleTimeoutS * 1000).toISOString();
  const row = await deps.db
    .selectFrom('staff_sessions as s')
    .innerJoin('staff_users as u', 'u.id', 's.staff_id')
    .select(['s.id as session_id', 's.expires_at', 's.last_seen_at', 'u.id', 'u.username', 'u.role', 'u.branch_id', 'u.merchant_id', 'u.must_change_password'])
    .where('s.token_hash', '=', sha256Hex(token))
    .where('s.revoked_at', 'is', null)
    .where('s.expires_at', '>', nowIso)
    .where('s.last_seen_at', '>', idleSince)
    .where('u.disabled_at', 'is', null)
    .executeTakeFirst();
  if (row && now.getTime() - new Date(row.last_seen_at).getTime() >= LAST_SEEN_EVERY_SECONDS * 1000) {
    // Conditional on the value read: of two calls at once, one writes.
    await deps.db.updateTable('staff_sessions').set({ last_seen_at: nowIso }).where('id', '=', row.session_id).where('last_seen_at', '=', row.last_seen_at).execute();
  }
  if (!row) throw staffUnauthorized();
  return {
    id: row.id,
    username: row.username,
    role: row.role,
    branchId: row.branch_id,
    merchantId: row.merchant_id,
    sessionId: row.session_id,
    expiresAt: row.expires_at,
    mustChangePassword: row.must_change_password === 1,
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

export async function me(deps: StaffAuthDeps, staff: StaffContext): Promise<Omit<StaffMe, 'time_zone'>> {
  const branch = staff.branchId
    ? await deps.db
        .selectFrom('branches as br')
        .innerJoin('banks as b', 'b.id', 'br.bank_id')
        .select(['br.name', 'b.name as bank_name'])
        .where('br.id', '=', staff.branchId)
        .executeTakeFirst()
    : undefined;
  const merchant = staff.merchantId ? await deps.db.selectFrom('merchants').select('name').where('id', '=', staff.merchantId).executeTakeFirst() : undefined;
  const own = await deps.db.selectFrom('staff_users').select('language').where('id', '=', staff.id).executeTakeFirst();
  return {
    user: {
      id: staff.id,
      username: staff.username,
      role: staff.role,
      language: own?.language ?? null,
      branch_id: staff.branchId,
      branch_name: branch ? `${branch.bank_name}, ${branch.name}` : null,
      merchant_id: staff.merchantId,
      merchant_name: merchant?.name ?? null,
    },
    expires_at: staff.expiresAt,
    must_change_password: staff.mustChangePassword,
  };
}
