import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ErrorEnvelope } from '../../shared/schemas/common';
import {
  CheckoutSessionCreate,
  CheckoutSessionResponse,
  InvoiceLineIngestRequest,
  InvoiceLineIngestResponse,
  InvoiceLineListQuery,
  InvoiceLineListResponse,
  RevenueLineListQuery,
  RevenueLineListResponse,
  RevenueLineSyncRequest,
  RevenueLineSyncResponse,
  SessionReferenceParams,
} from '../../shared/schemas/merchant';
import type { AppDeps } from '../deps';
import { authenticateMerchant, noteApiKeyUse, type MerchantContext } from './auth/merchant-auth';
import { runIdempotent } from './idempotency/idempotency.service';
import { ingestInvoiceLines, listInvoiceLines } from './invoice-lines/invoice-lines.service';
import { listRevenueLines, syncRevenueLines } from './revenue-lines/revenue-lines.service';
import { createSession, getMerchantSession, toMerchantSession } from './sessions/sessions.service';

const errors = { 400: ErrorEnvelope, 401: ErrorEnvelope, 404: ErrorEnvelope, 409: ErrorEnvelope, 422: ErrorEnvelope, 429: ErrorEnvelope };
const IdempotencyHeaders = z.object({
  'idempotency-key': z.string().optional().describe('Makes the write safe to retry: same key + same body replays the original result for 24 h.'),
});
const security = [{ apiKey: [] }];

function merchantOf(req: FastifyRequest): MerchantContext {
  if (!req.merchant) throw new Error('merchant route without authentication');
  return req.merchant;
}

/** The merchant API (`/api/v1/...`, Bearer API key). */
export async function merchantRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const { db, clock, ids, config } = deps;
  const r = app.withTypeProvider<ZodTypeProvider>();

  // preParsing: after every onRequest hook, so the rate limiter (a route-level onRequest hook)
  // has counted the call before an invalid key is refused; before the body is read, so a 401
  // comes before any body error. The limiter may already have resolved the key.
  app.addHook('preParsing', async (req) => {
    req.merchant ??= await authenticateMerchant(db, req);
    await noteApiKeyUse(db, clock, req.merchant.apiKeyId);
  });

  r.post(
    '/revenue-lines',
    {
      schema: {
        tags: ['Revenue lines'],
        summary: 'Sync revenue lines (service codes)',
        security,
        body: RevenueLineSyncRequest,
        response: { 200: RevenueLineSyncResponse, 207: RevenueLineSyncResponse, ...errors },
      },
    },
    async (req, reply) => {
      const m = merchantOf(req);
      const result = await syncRevenueLines(db, clock, ids, {
        merchantId: m.merchantId,
        mode: m.mode,
        integrationId: m.integrationId,
        lines: req.body.lines,
        deactivateMissing: req.body.deactivate_missing,
        fromForm: req.formEncoded === true,
      });
      return reply.code(result.errors.length ? 207 : 200).send(result);
    },
  );

  r.get(
    '/revenue-lines',
    {
      schema: {
        tags: ['Revenue lines'],
        summary: 'List revenue lines',
        security,
        querystring: RevenueLineListQuery,
        response: { 200: RevenueLineListResponse, ...errors },
      },
    },
    async (req) => listRevenueLines(db, merchantOf(req).merchantId, merchantOf(req).mode, req.query.include_inactive ?? false),
  );

  r.post(
    '/invoice-lines',
    {
      schema: {
        tags: ['Invoice lines'],
        summary: 'Record invoice lines for an invoice reference',
        security,
        headers: IdempotencyHeaders,
        body: InvoiceLineIngestRequest,
        response: { 200: InvoiceLineIngestResponse, 207: InvoiceLineIngestResponse, ...errors },
      },
    },
    async (req, reply) => {
      const m = merchantOf(req);
      const result = await runIdempotent(
        {
          db,
          clock,
          integrationId: m.integrationId,
          key: req.headers['idempotency-key'],
          method: 'POST',
          path: '/api/v1/invoice-lines',
          body: req.body,
          retentionSeconds: config.idempotencyRetentionSeconds,
        },
        async (trx) => {
          const body = await ingestInvoiceLines(trx, clock, ids, {
            merchantId: m.merchantId,
            mode: m.mode,
            invoiceRef: req.body.invoice_ref,
            currency: req.body.currency,
            lines: req.body.lines,
            fromForm: req.formEncoded === true,
          });
          return { status: body.errors.length ? 207 : 200, body };
        },
      );
      if (result.replayed) reply.header('idempotent-replayed', 'true');
      return reply.code(result.status).send(result.body);
    },
  );

  r.get(
    '/invoice-lines',
    {
      schema: {
        tags: ['Invoice lines'],
        summary: 'List the lines of an invoice',
        security,
        querystring: InvoiceLineListQuery,
        response: { 200: InvoiceLineListResponse, ...errors },
      },
    },
    async (req) => listInvoiceLines(db, merchantOf(req).merchantId, merchantOf(req).mode, req.query.invoice_ref),
  );

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
    async (req, reply) => {
      const m = merchantOf(req);
      const result = await runIdempotent(
        {
          db,
          clock,
          integrationId: m.integrationId,
          key: req.headers['idempotency-key'],
          method: 'POST',
          path: '/api/v1/sessions',
          body: req.body,
          retentionSeconds: config.idempotencyRetentionSeconds,
        },
        async (trx) => {
          const row = await createSession(trx, clock, ids, m, req.body);
          return { status: 201, body: toMerchantSession(row, deps.baseUrl()) };
        },
      );
      if (result.replayed) reply.header('idempotent-replayed', 'true');
      return reply.code(result.status).send(result.body);
    },
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
    async (req) => {
      const m = merchantOf(req);
      const row = await getMerchantSession(db, deps, m, req.params.reference);
      return toMerchantSession(row, deps.baseUrl());
    },
  );
}
