import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ErrorEnvelope } from '../../../shared/schemas/common';
import type { Clock } from '../../lib/clock';
import { apiKeyUseDue, authenticateMerchantFast, noteApiKeyUse, type MerchantAuthDeps, type MerchantContext } from './merchant-auth';

/** What every merchant route (`/api/v1/...`, Bearer API key) declares besides its own shapes. */
export const merchantErrors = { 400: ErrorEnvelope, 401: ErrorEnvelope, 404: ErrorEnvelope, 409: ErrorEnvelope, 422: ErrorEnvelope, 429: ErrorEnvelope };
export const merchantSecurity = [{ apiKey: [] }];

/**
 * Authenticates every route of the scope by its API key. preParsing: after every onRequest
 * hook, so the rate limiter (a route-level onRequest hook) has counted the call before an
 * invalid key is refused; before the body is read, so a 401 comes before any body error.
 * The limiter may already have resolved the key. The key's "last used" is noted here too.
 */
export function requireMerchantKey(app: FastifyInstance, deps: MerchantAuthDeps & { clock: Clock }): void {
  // Callback style: a key the cache holds, whose use was noted this minute, costs no promise.
  app.addHook('preParsing', (req, _reply, _payload, done) => {
    const known = req.merchant ?? authenticateMerchantFast(deps, req);
    if (!(known instanceof Promise) && !apiKeyUseDue(deps, known.apiKeyId)) {
      req.merchant = known;
      return done();
    }
    Promise.resolve(known)
      .then(async (ctx) => {
        req.merchant = ctx;
        await noteApiKeyUse(deps, ctx.apiKeyId);
      })
      .then(() => done(), done);
  });
}

export function merchantOf(req: FastifyRequest): MerchantContext {
  if (!req.merchant) throw new Error('merchant route without authentication');
  return req.merchant;
}
