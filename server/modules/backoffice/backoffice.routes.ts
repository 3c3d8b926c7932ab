import { firstRunRoutes, SETUP_ROUTE } from '../auth/first-run';
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../deps';
import { STAFF_LOGIN_ROUTE } from '../../http/rate-limit';
import { AppError } from '../../lib/errors';
import { staffAuthRoutes } from '../auth/staff.routes';
import { authenticateStaff } from '../auth/staff-auth';
import { cashDeskRoutes } from '../cash/cash.routes';
import { auditRoutes } from '../audit/audit.routes';
import { financeRoutes } from '../finance/finance.routes';
import { financeExceptionRoutes } from '../finance/finance-exceptions.routes';
import { adminRoutes } from '../admin/admin.routes';
import { webhookRoutes } from '../webhooks/webhooks.routes';

/** The calls a user who must change their password may still make. */
const PASSWORD_CHANGE_ROUTES = new Set(['/api/backoffice/v1/me', '/api/backoffice/v1/auth/logout', '/api/backoffice/v1/auth/password']);

/**
 * The back-office API (`/api/backoffice/v1`) used by the React back office.
 * This file only installs the staff sign-in scope and registers each area's routes in it:
 * every route but sign-in needs a staff bearer token (401 otherwise); each route declares the
 * roles that may call it (403 FORBIDDEN for the others) in its own area.
 */
export async function backofficeRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  app.addHook('onSend', async (_req, reply) => {
    reply.header('cache-control', 'no-store');
  });
  app.addHook('onRequest', async (req) => {
    // The matched route, not the raw URL (the router decodes `%6cogin`).
    if (req.routeOptions.url === STAFF_LOGIN_ROUTE || req.routeOptions.url === SETUP_ROUTE) return;
    // Unknown paths still answer 404 to anyone (the not-found handler runs without a route).
    if (!req.routeOptions.url) return;
    // The rate limiter may already have checked the token to pick its bucket.
    req.staff ??= await authenticateStaff(deps, req);
    if (req.staff.mustChangePassword && !PASSWORD_CHANGE_ROUTES.has(req.routeOptions.url)) {
      throw new AppError('PASSWORD_CHANGE_REQUIRED', 'password: an administrator set your password; choose your own with POST /api/backoffice/v1/auth/password first');
    }
  });

  // Registration order is the order of the OpenAPI document's paths: keep it.
  await staffAuthRoutes(app, deps);
  await firstRunRoutes(app, deps);
  await cashDeskRoutes(app, deps);
  await auditRoutes(app, deps);
  await financeRoutes(app, deps);
  await financeExceptionRoutes(app, deps);
  await adminRoutes(app, deps);
  await webhookRoutes(app, deps);
}
