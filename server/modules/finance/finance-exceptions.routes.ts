import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../deps';
import { reportStream } from '../../http/report-stream';
import { ErrorEnvelope } from '../../../shared/schemas/common';
import {
  ExceptionItemList,
  ExceptionItemQuery,
  ExceptionList,
  ExceptionListQuery,
  ExceptionReview,
  ExceptionReviewBody,
  ExceptionReviewParams,
  ExceptionReviewQuery,
  ExceptionsExportQuery,
  WorkCounts,
} from '../../../shared/schemas/finance-exceptions';
import type { ExceptionItemList as ExceptionItemListBody, ExceptionList as ExceptionListBody } from '../../../shared/schemas/finance-exceptions';
import { reviewException, workCounts } from './finance-exception-items';
import { openExceptionCount } from './finance-overview';
import { merchantScope } from './merchant-scope';
import { allow, requireStaff } from '../auth';
import { catchUpInvoiceSummaries } from '../../jobs/invoice-summary-fold';

const errors = { 400: ErrorEnvelope, 401: ErrorEnvelope, 403: ErrorEnvelope, 404: ErrorEnvelope, 429: ErrorEnvelope };
const tags = ['Back office: finance'];

/** Finance exceptions: finance (own merchant) and admin (names the merchant), like the other finance calls. */
export async function financeExceptionRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const finance = allow('finance', 'admin');
  r.get(
    '/exceptions',
    { preValidation: finance, schema: { tags, summary: 'Payments that do not reconcile with their invoice (over-paid, paid twice, part-payments)', querystring: ExceptionListQuery, response: { 200: ExceptionList, ...errors } } },
    // Derived from every paid session of the merchant: computed in the report worker (server/modules/reports/).
    async (req) => {
      const merchantId = await merchantScope(deps.db, requireStaff(req), req.query.merchant_id);
      await catchUpInvoiceSummaries(deps.db); // the worker reads invoice_summaries: the pending deltas first
      const { kind, limit, offset } = req.query;
      return JSON.parse(await deps.reports.text('exceptionsList', { merchantId, kind, limit, offset })) as ExceptionListBody;
    },
  );
  r.get(
    '/exception-items',
    {
      preValidation: finance,
      schema: { tags, summary: 'Exceptions as work items: one per invoice, kinds merged, with status, note, who and when', querystring: ExceptionItemQuery, response: { 200: ExceptionItemList, ...errors } },
    },
    async (req) => {
      const merchantId = await merchantScope(deps.db, requireStaff(req), req.query.merchant_id);
      await catchUpInvoiceSummaries(deps.db);
      const { status, kind, limit, offset } = req.query;
      return JSON.parse(await deps.reports.text('exceptionItems', { merchantId, status, kind, invoiceRef: req.query.invoice_ref, limit, offset })) as ExceptionItemListBody;
    },
  );
  r.post(
    '/exception-items/:invoice_ref/review',
    {
      preValidation: finance,
      schema: {
        tags,
        summary: 'Resolve, ignore or reopen the exception of an invoice, with a note (audited)',
        params: ExceptionReviewParams,
        querystring: ExceptionReviewQuery,
        body: ExceptionReviewBody,
        response: { 200: ExceptionReview, ...errors },
      },
    },
    async (req) => {
      const staff = requireStaff(req);
      const merchantId = await merchantScope(deps.db, staff, req.query.merchant_id);
      await catchUpInvoiceSummaries(deps.db);
      return reviewException(deps, staff, req.ip, merchantId, req.params.invoice_ref, req.body);
    },
  );
  r.get(
    '/work-counts',
    { schema: { tags, summary: 'Work waiting for the caller: open exceptions (finance, admin), deposits waiting for review (supervisor)', response: { 200: WorkCounts, ...errors } } },
    async (req) => workCounts(deps.db, requireStaff(req), (merchantId) => openExceptionCount(deps.db, merchantId, null)),
  );
  r.get(
    '/reports/exceptions.csv',
    { preValidation: finance, schema: { tags, summary: 'The finance exceptions list as CSV', querystring: ExceptionsExportQuery } },
    async (req, reply) => {
      const merchantId = await merchantScope(deps.db, requireStaff(req), req.query.merchant_id);
      await catchUpInvoiceSummaries(deps.db);
      const csv = reportStream(await deps.reports.open('exceptionsCsv', { merchantId, kind: req.query.kind }));
      const day = deps.clock.now().toISOString().slice(0, 10);
      return reply.type('text/csv; charset=utf-8').header('content-disposition', `attachment; filename="exceptions-${day}.csv"`).send(csv);
    },
  );
}
