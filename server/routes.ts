import type { FastifyInstance } from 'fastify';
import type { AppDeps } from './deps';
import { STAFF_LOGIN_ROUTE } from './http/rate-limit';
import { AppError } from './lib/errors';
import { authenticateStaff, createFirstRun, firstRunRoutes, requireMerchantKey, SETUP_ROUTE, staffAuthRoutes, type FirstRun } from './modules/auth';
import { invoicesRoutes } from './modules/invoices';
import { sessionsRoutes } from './modules/sessions';
import { checkoutRoutes } from './modules/payments';
import { cashDeskRoutes, cashSlipRoutes } from './modules/cash';
import { auditRoutes } from './modules/audit';
import { financeExceptionRoutes, financeRoutes } from './modules/finance';
import { adminRoutes } from './modules/admin';
import { webhookRoutes } from './modules/webhooks';

declare module 'fastify' {
  interface FastifyInstance {
    /** The one-time setup link of a database without staff (modules/auth/first-run.ts). */
    firstRun: FirstRun;
  }
}

/** The calls a user who must change their password may still make. */
const PASSWORD_CHANGE_ROUTES = new Set(['/api/backoffice/v1/me', '/api/backoffice/v1/auth/logout', '/api/backoffice/v1/auth/password']);

/**
 * Every API route, one scope per API. This is the only place that registers a module's route
 * plugins (`<area>.routes.ts`, each exported by its module's `index.ts`, as everything here
 * takes from a module); modules reach each other through their `index.ts` only.
 * Registration order is the order of the OpenAPI document's paths: keep it.
 */
export async function registerApiRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  // The merchant API: one scope, so the API-key hook covers every area's routes in it.
  await app.register(
    async (scope) => {
      requireMerchantKey(scope, deps);
      await invoicesRoutes(scope, deps);
      await sessionsRoutes(scope, deps);
    },
    { prefix: '/api/v1' },
  );
  // The hosted checkout (no credential): the payments rails and the cash slip share its scope.
  await app.register(
    async (scope) => {
      await checkoutRoutes(scope, deps);
      await cashSlipRoutes(scope, deps);
    },
    { prefix: '/api/v1/checkout' },
  );
  const firstRun = createFirstRun(deps);
  app.decorate('firstRun', firstRun);
  await app.register(async (scope) => backofficeRoutes(scope, deps), { prefix: '/api/backoffice/v1' });
}

/**
 * The back-office API (`/api/backoffice/v1`) used by the React back office: the staff sign-in
 * scope, then each area's routes in it. Every route but sign-in needs a staff bearer token (401
 * otherwise); each route declares the roles that may call it (403 FORBIDDEN for the others) in
 * its own area.
 */
async function backofficeRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
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

  await staffAuthRoutes(app, deps);
  await firstRunRoutes(app, deps);
  await cashDeskRoutes(app, deps);
  await auditRoutes(app, deps);
  await financeRoutes(app, deps);
  await financeExceptionRoutes(app, deps);
  await adminRoutes(app, deps);
  await webhookRoutes(app, deps);
}
