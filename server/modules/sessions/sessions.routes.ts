import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { CheckoutSessionCreate, CheckoutSessionResponse, SessionReferenceParams } from '../../../shared/schemas/merchant';
import type { AppDeps } from '../../deps';
import { merchantErrors as errors, merchantOf, merchantSecurity as security } from '../auth';
import { IdempotencyHeaders, idempotencyKeyOf, sendKeyed } from '../idempotency';
import { sessionMode } from '../../lib/ids';
import { keptOrComputed } from '../../http/kept-answers';
import { createSession, merchantSessionAnswer, merchantSessionVersion } from './sessions.service';

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
    async (req, reply) => sendKeyed(reply, await createSession(deps, merchantOf(req), req.body, idempotencyKeyOf(req))),
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
    async (req, reply) => {
      const owner = merchantOf(req);
      const id = req.params.reference;
      const baseUrl = deps.baseUrl();
      // Polled by merchants: served from the kept answer while nothing changed it (http/kept-answers.ts).
      const read = {
        key: `session ${id}`,
        owner: owner.merchantId,
        baseUrl,
        dataVersion: req.dataVersion,
        keepable: sessionMode(id) === owner.mode,
        rowVersion: () => merchantSessionVersion(deps, owner, id),
      };
      return keptOrComputed(reply, deps, read, () => merchantSessionAnswer(deps, owner, id, baseUrl));
    },
  );
}
