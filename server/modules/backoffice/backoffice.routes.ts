import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../deps';
import { ErrorEnvelope } from '../../../shared/schemas/common';
import { STAFF_LOGIN_ROUTE } from '../../http/rate-limit';
import {
  AuditList,
  AuditFilter,
  AuditQuery,
  PasswordChange,
  StaffLogin,
  StaffLoginResponse,
  StaffMe,
} from '../../../shared/schemas/backoffice';
import { auditCsv, listAudit } from './audit.service';
import { cashDeskRoutes } from '../cash/cash.routes';
import { financeRoutes } from './finance.routes';
import { financeExceptionRoutes } from './finance-exceptions.routes';
import { adminRoutes } from './admin.routes';
import { webhookRoutes } from '../webhooks/webhooks.routes';
import { allow, authenticateStaff, login, logout, me, requireStaff } from './staff-auth';
import { checkCsrf, clearStaffCookie, fromBackOffice, setStaffCookie } from './staff-cookie';
import { changeOwnPassword } from './staff-password';
import { AppError } from '../../lib/errors';

/** The calls a user who must change their password may still make. */
const PASSWORD_CHANGE_ROUTES = new Set(['/api/backoffice/v1/me', '/api/backoffice/v1/auth/logout', '/api/backoffice/v1/auth/password']);

const errors = { 400: ErrorEnvelope, 401: ErrorEnvelope, 403: ErrorEnvelope, 404: ErrorEnvelope, 409: ErrorEnvelope, 429: ErrorEnvelope };

/**
 * The back-office API (`/api/backoffice/v1`, CONTRACT §3) used by the React back office.
 * Every route but sign-in needs a staff bearer token (401 otherwise); each declares the roles
 * that may call it (403 FORBIDDEN for the others). Role names, paths and shapes of the cash
 * desk are fixed by the contract.
 */
export async function backofficeRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  app.addHook('onSend', async (_req, reply) => {
    reply.header('cache-control', 'no-store');
  });
  app.addHook('onRequest', async (req) => {
    // The matched route, not the raw URL (the router decodes `%6cogin`).
    if (req.routeOptions.url === STAFF_LOGIN_ROUTE) return;
    // Unknown paths still answer 404 to anyone (the not-found handler runs without a route).
    if (!req.routeOptions.url) return;
    // The rate limiter may already have checked the token to pick its bucket.
    req.staff ??= await authenticateStaff(deps, req);
    if (req.staff.mustChangePassword && !PASSWORD_CHANGE_ROUTES.has(req.routeOptions.url)) {
      throw new AppError('PASSWORD_CHANGE_REQUIRED', 'password: an administrator set your password; choose your own with POST /api/backoffice/v1/auth/password first');
    }
  });

  // ------------------------------------------------------------ auth
  const authTags = ['Back office: staff sign-in'];
  r.post(
    '/auth/login',
    {
      schema: {
        tags: authTags,
        summary: 'Sign in: a bearer token for the other calls (and, for the back office page, which sends x-paydesk-csrf: 1, an HttpOnly cookie)',
        body: StaffLogin,
        response: { 200: StaffLoginResponse, ...errors },
      },
    },
    async (req, reply) => {
      // Only the back office page gets the cookie: a cross-site form cannot send the header,
      // so it cannot sign a browser in to someone else's account either.
      if (fromBackOffice(req)) checkCsrf(req);
      const result = await login(deps, req.body.username, req.body.password, req.ip);
      if (fromBackOffice(req)) setStaffCookie(req, reply, result.token, deps.config.publicBaseUrl);
      return result;
    },
  );
  r.post(
    '/auth/password',
    {
      schema: {
        tags: authTags,
        summary: 'Change your own password (required after an administrator created or reset the account); signs out your other sessions',
        body: PasswordChange,
        response: { 204: z.null(), ...errors },
      },
    },
    async (req, reply) => {
      await changeOwnPassword(deps, requireStaff(req), req.ip, req.body);
      return reply.code(204).send(null);
    },
  );
  r.post(
    '/auth/logout',
    { schema: { tags: authTags, summary: 'Revoke the token this call is made with', response: { 204: z.null(), ...errors } } },
    async (req, reply) => {
      await logout(deps, requireStaff(req), req.ip);
      clearStaffCookie(req, reply, deps.config.publicBaseUrl);
      return reply.code(204).send(null);
    },
  );
  r.get('/me', { schema: { tags: authTags, summary: 'The signed-in staff member', response: { 200: StaffMe, ...errors } } }, async (req) =>
    me(deps, requireStaff(req)),
  );

  await cashDeskRoutes(app, deps);

  // ------------------------------------------------------------ audit trail
  r.get(
    '/audit',
    {
      preValidation: allow('admin', 'supervisor'),
      schema: { tags: ['Back office: audit'], summary: 'The audit trail of staff actions, newest first (read-only)', querystring: AuditQuery, response: { 200: AuditList, ...errors } },
    },
    async (req) => listAudit(deps.db, req.query),
  );
  r.get(
    '/audit/export.csv',
    {
      preValidation: allow('admin', 'supervisor'),
      schema: { tags: ['Back office: audit'], summary: 'The filtered audit trail as CSV, oldest first (action in words, target by name)', querystring: AuditFilter },
    },
    async (req, reply) => {
      const csv = await auditCsv(deps.db, req.query);
      return reply.type('text/csv; charset=utf-8').header('content-disposition', 'attachment; filename="audit-trail.csv"').send(csv);
    },
  );

  await financeRoutes(app, deps);
  await financeExceptionRoutes(app, deps);
  await adminRoutes(app, deps);
  await webhookRoutes(app, deps);
}
