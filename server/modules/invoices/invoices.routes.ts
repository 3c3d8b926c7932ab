import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  InvoiceLineIngestRequest,
  InvoiceLineIngestResponse,
  InvoiceLineListQuery,
  InvoiceLineListResponse,
  RevenueLineListQuery,
  RevenueLineListResponse,
  RevenueLineSyncRequest,
  RevenueLineSyncResponse,
} from '../../../shared/schemas/merchant';
import type { AppDeps } from '../../deps';
import { merchantErrors as errors, merchantOf, merchantSecurity as security } from '../auth';
import { IdempotencyHeaders, idempotencyKeyOf, sendKeyed } from '../idempotency';
import { listInvoiceLines, recordInvoiceLines } from './invoice-lines';
import { listRevenueLines, syncRevenueLines } from './revenue-lines';

/** Revenue lines and invoice lines of the merchant API (`/api/v1/...`; the scope authenticates the key). */
export async function invoicesRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const withLineErrors = (body: { errors: unknown[] }) => (body.errors.length ? 207 : 200);

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
      const result = await syncRevenueLines(deps, {
        merchantId: m.merchantId,
        mode: m.mode,
        integrationId: m.integrationId,
        lines: req.body.lines,
        deactivateMissing: req.body.deactivate_missing,
        fromForm: req.formEncoded === true,
      });
      return reply.code(withLineErrors(result)).send(result);
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
    async (req) => listRevenueLines(deps.db, merchantOf(req), req.query.include_inactive ?? false),
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
      const input = {
        merchantId: m.merchantId,
        mode: m.mode,
        invoiceRef: req.body.invoice_ref,
        currency: req.body.currency,
        lines: req.body.lines,
        fromForm: req.formEncoded === true,
      };
      return sendKeyed(reply, await recordInvoiceLines(deps, input, idempotencyKeyOf(req)));
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
    async (req) => listInvoiceLines(deps.db, merchantOf(req), req.query.invoice_ref),
  );
}
