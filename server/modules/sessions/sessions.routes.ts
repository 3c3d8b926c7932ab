import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { CheckoutSessionCreate, CheckoutSessionResponse, SessionReferenceParams } from '../../../shared/schemas/merchant';
import type { AppDeps } from '../../deps';
import { merchantErrors as errors, merchantOf, merchantSecurity as security } from '../auth/merchant-api';
import { IdempotencyHeaders, sendIdempotent } from '../idempotency/idempotent-reply';
import { createSession, getMerchantSession, toMerchantSession } from './sessions.service';

/** Checkout sessions of the merchant API (`/api/v1/sessions`; the scope authenticates the key). */
export async function sessionsRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.post(
    '/sessions',
    {
      schema: {
        tags: ['Checkout sessions'],
        summary: 'Create a checkout session',
        security,
        headers: IdempotencyHeaders,
        body: CheckoutSessionCreate,
        response: { 201: CheckoutSessionResponse, ...errors },
      },
    },
    // READ COMMITTED (docs/performance.md): the key is reserved by a conditional upsert, the
    // session is a fresh row, and the invoice-currency read races only invoice uploads, which
    // never read sessions, so every interleaving equals "this session first".
    async (req, reply) =>
      sendIdempotent(req, reply, deps, 201, createSession(deps, merchantOf(req), req.body), { isolation: 'read committed' }),
  );

  r.get(
    '/sessions/:reference',
    {
      schema: {
        tags: ['Checkout sessions'],
        summary: 'Look up a checkout session (fallback confirmation)',
        security,
        params: SessionReferenceParams,
        response: { 200: CheckoutSessionResponse, ...errors },
      },
    },
    async (req) => toMerchantSession(await getMerchantSession(deps, merchantOf(req), req.params.reference), deps.baseUrl()),
  );
}
