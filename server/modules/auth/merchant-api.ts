import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ErrorEnvelope } from '../../../shared/schemas/common';
import type { Clock } from '../../lib/clock';
import { authenticateMerchant, noteApiKeyUse, type MerchantAuthDeps, type MerchantContext } from './merchant-auth';

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
  app.addHook('preParsing', async (req) => {
    req.merchant ??= await authenticateMerchant(deps, req);
    await noteApiKeyUse(deps, req.merchant.apiKeyId);
  });
}

export function merchantOf(req: FastifyRequest): MerchantContext {
  if (!req.merchant) throw new Error('merchant route without authentication');
  return req.merchant;
}
