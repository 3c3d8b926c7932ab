import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { ErrorEnvelope } from '../../../shared/schemas/common';
import {
  AttemptParams,
  AttemptStatusQuery,
  CardPaymentCreate,
  CardPaymentResponse,
  ProviderPaymentAuthorize,
  ProviderPaymentInitiate,
  ProviderPaymentInitiationResponse,
  ProviderPaymentStatusResponse,
  PublicCheckoutOptions,
  PublicCheckoutQuote,
  PublicCheckoutSession,
  SessionRefParams,
} from '../../../shared/schemas/checkout';
import {
  attemptStatus,
  authorizeAttempt,
  checkoutOptions,
  createProviderAttempt,
  payByCard,
  publicSession,
  quoteSession,
  resendCode,
  type PaymentsDeps,
} from './payments.service';
import type { QuoteInputMemory } from './quote-inputs';
import { keptOrComputed, type KeptAnswerMemory } from '../../http/kept-answers';

const errors = { 400: ErrorEnvelope, 404: ErrorEnvelope, 409: ErrorEnvelope, 429: ErrorEnvelope, 503: ErrorEnvelope };
const tags = ['Hosted checkout'];

/** Public hosted-checkout API (`/api/v1/checkout/...`): no credential, addressed by session reference. */
export async function checkoutRoutes(app: FastifyInstance, deps: PaymentsDeps & { quoteInputs: QuoteInputMemory; keptAnswers: KeptAnswerMemory }): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  // The payer's browser may hold a cached page; these answers are always live.
  app.addHook('onSend', (_req, reply, payload, done) => {
    reply.header('cache-control', 'no-store');
    done(null, payload);
  });
  r.get('/options', { schema: { tags, summary: 'Payment methods, banks and branches', response: { 200: PublicCheckoutOptions, ...errors } } }, async () =>
    checkoutOptions(deps.db),
  );

  r.get(
    '/sessions/:reference',
    { schema: { tags, summary: 'The session as the payer sees it', params: SessionRefParams, response: { 200: PublicCheckoutSession, ...errors } } },
    async (req) => publicSession(deps, req.params.reference),
  );

  r.get(
    '/sessions/:reference/quote',
    { schema: { tags, summary: 'Totals and payer-borne fees per enabled rail', params: SessionRefParams, response: { 200: PublicCheckoutQuote, ...errors } } },
    // Polled by the payer's page: served from the kept answer while nothing changed it (http/kept-answers.ts).
    async (req, reply) => keptOrComputed(reply, deps, { key: `quote ${req.params.reference}`, owner: '', baseUrl: '' }, async () => ({ answer: await quoteSession(deps, req.params.reference) })),
  );

  r.post(
    '/sessions/:reference/provider-attempts',
    {
      schema: {
        tags,
        summary: 'Start a Mobile Money or bank-transfer payment attempt',
        params: SessionRefParams,
        body: ProviderPaymentInitiate,
        response: { 200: ProviderPaymentInitiationResponse, 201: ProviderPaymentInitiationResponse, ...errors },
      },
    },
    async (req, reply) => {
      const result = await createProviderAttempt(deps, req.params.reference, req.body);
      return reply.code(result.status).send(result.body);
    },
  );

  r.get(
    '/sessions/:reference/provider-attempts/:attempt_reference',
    {
      schema: {
        tags,
        summary: 'Payment attempt status (refresh=1 asks the provider first)',
        params: AttemptParams,
        querystring: AttemptStatusQuery,
        response: { 200: ProviderPaymentStatusResponse, ...errors },
      },
    },
    async (req) => attemptStatus(deps, req.params.reference, req.params.attempt_reference, req.query.refresh ?? false),
  );

  r.post(
    '/sessions/:reference/provider-attempts/:attempt_reference/authorize',
    {
      schema: {
        tags,
        summary: "Submit the payer's Mobile Money verification code",
        params: AttemptParams,
        body: ProviderPaymentAuthorize,
        response: { 200: ProviderPaymentStatusResponse, ...errors },
      },
    },
    async (req) => authorizeAttempt(deps, req.params.reference, req.params.attempt_reference, req.body.code),
  );

  r.post(
    '/sessions/:reference/provider-attempts/:attempt_reference/resend',
    {
      schema: { tags, summary: 'Send another Mobile Money verification code', params: AttemptParams, response: { 200: ProviderPaymentStatusResponse, ...errors } },
    },
    async (req) => resendCode(deps, req.params.reference, req.params.attempt_reference),
  );

  r.post(
    '/sessions/:reference/card-payments',
    {
      schema: {
        tags,
        summary: 'Card payment, test simulation (hosted checkout only; never call it from a merchant backend)',
        params: SessionRefParams,
        body: CardPaymentCreate,
        response: { 201: CardPaymentResponse, ...errors },
      },
    },
    async (req, reply) => {
      const result = await payByCard(deps, req.params.reference, req.body);
      return reply.code(result.status).send(result.body);
    },
  );
}
