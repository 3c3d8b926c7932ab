import type { FastifyReply, FastifyRequest } from 'fastify';
import type { StaffRole } from '../../shared/schemas/backoffice';
import { ErrorEnvelope } from '../../shared/schemas/common';
import { AppError } from '../lib/errors';

/**
 * The signed-in staff member on a back-office request, and the checks every back-office route
 * makes on it: which roles may call (`allow`), that someone signed in (`requireStaff`), and the
 * error answers each route declares (`staffErrors`). Who the caller is (the token, its expiry,
 * sign-in itself) is the auth module's (modules/auth/staff-auth.ts), which sets `req.staff`
 * in the back-office scope (server/routes.ts); these only read what it set. So they sit below
 * every module: the audit module, which auth writes its sign-in rows through, uses them without
 * importing auth (the other areas have them re-exported by auth's index.ts).
 */
export interface StaffContext {
  id: string;
  username: string;
  role: StaffRole;
  branchId: string | null;
  merchantId: string | null;
  sessionId: string;
  expiresAt: string;
  mustChangePassword: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    staff?: StaffContext;
  }
}

/** The one 401 of the back office: no token, or one that is unknown, expired, idle or signed out. */
export const staffUnauthorized = () =>
  new AppError('UNAUTHORIZED', 'sign in again: send Authorization: Bearer <token> with a token from POST /api/backoffice/v1/auth/login that is not expired or signed out');

/** preValidation hook: only these roles may make the call (403 FORBIDDEN for the others). */
export function allow(...roles: StaffRole[]) {
  return async (req: FastifyRequest, _reply: FastifyReply): Promise<void> => {
    const staff = req.staff;
    if (!staff) throw staffUnauthorized();
    if (!roles.includes(staff.role)) {
      throw new AppError('FORBIDDEN', `a ${staff.role} may not make this call (allowed: ${roles.join(', ')})`);
    }
  };
}

export function requireStaff(req: FastifyRequest): StaffContext {
  if (!req.staff) throw staffUnauthorized();
  return req.staff;
}

/** The error answers every back-office route declares besides its own shapes (the staff twin of modules/auth/merchant-api.ts). */
export const staffErrors = { 400: ErrorEnvelope, 401: ErrorEnvelope, 403: ErrorEnvelope, 404: ErrorEnvelope, 409: ErrorEnvelope, 429: ErrorEnvelope };
