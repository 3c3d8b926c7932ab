import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppDeps } from '../deps';
import { AppError } from '../lib/errors';
import { redisRateLimitStore } from './rate-limit-store';

/** The route patterns each bucket covers, as registered (never the raw URL: the router decodes `%61pi`). */
export const STAFF_LOGIN_ROUTE = '/api/backoffice/v1/auth/login';

/**
 * How a request's credential is checked; the auth module provides both (the app passes them in).
 * Each throws when the credential does not authenticate.
 */
interface Authenticators {
  merchant(deps: AppDeps, req: FastifyRequest): Promise<NonNullable<FastifyRequest['merchant']>>;
  staff(deps: AppDeps, req: FastifyRequest): Promise<NonNullable<FastifyRequest['staff']>>;
}

type RateLimitBucket = 'merchant' | 'checkout' | 'backoffice' | 'login';

/** Which bucket a matched route counts against; null for pages, /docs, /healthz and unknown paths. */
function bucketOfRoute(routeUrl: string | undefined): RateLimitBucket | null {
  if (!routeUrl) return null;
  if (routeUrl === STAFF_LOGIN_ROUTE) return 'login';
  if (routeUrl.startsWith('/api/backoffice/')) return 'backoffice';
  if (routeUrl === '/api/v1/checkout' || routeUrl.startsWith('/api/v1/checkout/')) return 'checkout';
  if (routeUrl.startsWith('/api/v1/')) return 'merchant';
  return null;
}

/**
 * The key a request is counted under (docs/merchant-api.md, "Rate limits"):
 * - merchant API: its API key, so one merchant's traffic never limits another's;
 * - hosted checkout: the client IP (payers have no credential);
 * - back office: the staff token, so a branch of tellers behind one address share nothing;
 * - staff sign-in: its own per-IP bucket (the per-username lockout is separate, in staff-auth);
 * - a merchant or back-office call whose credential does not authenticate: the client IP's
 *   failed-authentication bucket, so made-up keys are limited without touching anyone else.
 * The credential checked here is kept on the request; the routes do not look it up again.
 */
async function keyFor(deps: AppDeps, authenticate: Authenticators, req: FastifyRequest): Promise<string> {
  const bucket = bucketOfRoute(req.routeOptions.url);
  switch (bucket) {
    case 'checkout':
      return `checkout:${req.ip}`;
    case 'login':
      return `login:${req.ip}`;
    case 'merchant':
      try {
        req.merchant = await authenticate.merchant(deps, req);
        return `key:${req.merchant.apiKeyId}`;
      } catch {
        return `authfail:${req.ip}`; // refused with 401 by the merchant routes, after it is counted here
      }
    case 'backoffice':
      // Whatever credential the staff authenticator accepts (bearer token today) picks the bucket.
      try {
        req.staff = await authenticate.staff(deps, req);
        return `staff:${req.staff.sessionId}`;
      } catch {
        return `authfail:${req.ip}`; // refused with 401 by the back-office routes, after it is counted here
      }
    case null:
      return 'none';
  }
}

/**
 * Limits every API route by the bucket of the route it matched. Installed as an app-level
 * onRequest hook, so it runs before the back office's own authentication hook and counts the
 * calls that hook would refuse.
 */
export async function registerRateLimit(app: FastifyInstance, deps: AppDeps, authenticate: Authenticators): Promise<void> {
  const max = deps.config.rateLimitPerMin;
  if (max <= 0) return;
  // REDIS_URL: one count across every instance; without it each instance counts alone.
  const shared = deps.config.redisUrl ? await redisRateLimitStore(deps.config.redisUrl, deps.config.redisKeyPrefix, app.log) : undefined;
  if (shared) {
    app.addHook('onClose', async () => shared.close());
    await shared.connected();
  }
  await app.register(rateLimit, {
    ...(shared ? { store: shared.store } : {}),
    global: false,
    max,
    timeWindow: 60_000,
    keyGenerator: (req) => keyFor(deps, authenticate, req),
    allowList: (req) => bucketOfRoute(req.routeOptions.url) === null,
    errorResponseBuilder: (_req, ctx) => {
      const seconds = Math.max(1, Math.ceil(ctx.ttl / 1000));
      return new AppError('RATE_LIMITED', `too many requests: limit is ${ctx.max} per minute; retry after ${seconds} s`, {
        retryAfterSeconds: seconds,
      });
    },
  });
  app.addHook('onRequest', app.rateLimit());
}
