import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { CheckoutSessionCreate, CheckoutSessionResponse, SessionReferenceParams } from '../../../shared/schemas/merchant';
import type { AppDeps } from '../../deps';
import { merchantErrors as errors, merchantOf, merchantSecurity as security } from '../auth';
import { IdempotencyHeaders, sendIdempotent } from '../idempotency';
import { sessionMode } from '../../lib/ids';
import { answerStamp, keepAnswer, keptAnswer, sendSerialised } from '../../http/kept-answers';
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
    async (req, reply) => {
      const owner = merchantOf(req);
      const id = req.params.reference;
      const baseUrl = deps.baseUrl();
      // SQLite: the serialised answer kept since the last change (kept-answers.ts); the stamp is read before the row.
      const stamp = sessionMode(id) === owner.mode ? answerStamp(deps.db, req.dataVersion) : undefined;
      if (stamp !== undefined) {
        const kept = keptAnswer(deps.keptAnswers, stamp, `session ${id}`, owner.merchantId, baseUrl, deps.clock);
        if (kept !== undefined) return sendSerialised(reply, kept);
      }
      const session = toMerchantSession(await getMerchantSession(deps, owner, id), baseUrl);
      if (stamp === undefined) return session;
      const body = String(reply.serialize(session)); // the route's serializer, as Fastify would use for the object
      keepAnswer(deps.keptAnswers, stamp, `session ${id}`, { owner: owner.merchantId, baseUrl, status: session.status, expiresAt: session.expires_at, body });
      return sendSerialised(reply, body);
    },
  );
}
