import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../deps';
import { reportStream } from '../../http/report-stream';
import {
  InvoiceDetail,
  InvoiceDetailQuery,
  InvoiceList,
  InvoiceListQuery,
  InvoiceRefParams,
  MerchantList,
  MerchantScopeQuery,
  PaymentsExportAnswer,
  PaymentsExportIdParams,
  PaymentsExportQuery,
  PaymentsExportStart,
  RevenueLineIdParams,
  RevenueLinesView,
  SessionDetail,
  SessionIdParams,
  SessionList,
  SessionListQuery,
} from '../../../shared/schemas/backoffice';
import { Overview, OverviewQuery } from '../../../shared/schemas/overview';
import { createExportJobs } from './export-jobs';
import { paymentsExportRange } from './finance-export.service';
import { financeOverview } from './finance-overview';
import { invoiceDetail, listInvoices, listMerchants, listSessions, revenueLines, sessionDetail, setRevenueLineActive } from './finance.service';
import { merchantScope } from './merchant-scope';
import { allow, requireStaff, staffErrors } from '../auth';

const errors = staffErrors;
const tags = ['Back office: finance'];

/** Finance screens: a finance user sees its own merchant only; an admin names the merchant. */
export async function financeRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const finance = allow('finance', 'admin');

  r.get('/merchants', { preValidation: finance, schema: { tags, summary: 'Merchants the caller may see', response: { 200: MerchantList, ...errors } } }, async (req) =>
    listMerchants(deps.db, requireStaff(req)),
  );

  r.get(
    '/overview',
    {
      preValidation: finance,
      schema: { tags, summary: 'Totals of a date range in one currency: gross, fees, net, counts by status, collections per day by rail', querystring: OverviewQuery, response: { 200: Overview, ...errors } },
    },
    async (req) => financeOverview(deps, await merchantScope(deps.db, requireStaff(req), req.query.merchant_id), req.query),
  );

  r.get(
    '/revenue-lines',
    { preValidation: finance, schema: { tags, summary: 'Revenue lines (active and inactive) with sync history', querystring: MerchantScopeQuery, response: { 200: RevenueLinesView, ...errors } } },
    async (req) => revenueLines(deps.db, await merchantScope(deps.db, requireStaff(req), req.query.merchant_id)),
  );
  for (const action of ['activate', 'deactivate'] as const) {
    r.post(
      `/revenue-lines/:line_id/${action}`,
      {
        preValidation: finance,
        schema: { tags, summary: `${action === 'activate' ? 'Activate' : 'Deactivate'} a revenue line (recorded as a sync)`, params: RevenueLineIdParams, querystring: MerchantScopeQuery, response: { 200: RevenueLinesView, ...errors } },
      },
      async (req) => {
        const staff = requireStaff(req);
        const merchantId = await merchantScope(deps.db, staff, req.query.merchant_id);
        return setRevenueLineActive(deps, staff, req.ip, merchantId, req.params.line_id, action === 'activate');
      },
    );
  }

  r.get(
    '/invoices',
    { preValidation: finance, schema: { tags, summary: 'Invoices with billed amount and remitted state', querystring: InvoiceListQuery, response: { 200: InvoiceList, ...errors } } },
    async (req) => listInvoices(deps.db, await merchantScope(deps.db, requireStaff(req), req.query.merchant_id), req.query, deps.config.listTotalCap),
  );
  r.get(
    '/invoices/:invoice_ref',
    { preValidation: finance, schema: { tags, summary: 'One invoice: lines and sessions', params: InvoiceRefParams, querystring: InvoiceDetailQuery, response: { 200: InvoiceDetail, ...errors } } },
    async (req) => invoiceDetail(deps.db, await merchantScope(deps.db, requireStaff(req), req.query.merchant_id), req.params.invoice_ref, req.query),
  );

  r.get(
    '/sessions',
    { preValidation: finance, schema: { tags, summary: 'Checkout sessions with filters, sorted and paginated', querystring: SessionListQuery, response: { 200: SessionList, ...errors } } },
    async (req) => listSessions(deps, await merchantScope(deps.db, requireStaff(req), req.query.merchant_id), req.query, deps.config.listTotalCap),
  );
  r.get(
    '/sessions/:session_id',
    { preValidation: finance, schema: { tags, summary: 'One session with its timeline', params: SessionIdParams, response: { 200: SessionDetail, ...errors } } },
    async (req) => sessionDetail(deps, requireStaff(req), req.params.session_id),
  );

  r.get(
    '/reports/payments.csv',
    { preValidation: finance, schema: { tags, summary: 'Reconciliation export: payments whose session succeeded in [from, to), as CSV', querystring: PaymentsExportQuery } },
    async (req, reply) => {
      const merchantId = await merchantScope(deps.db, requireStaff(req), req.query.merchant_id);
      // In the report worker (server/modules/reports/): the loop only passes chunks on.
      const csv = reportStream(await deps.reports.open('payments', paymentsExportRange(merchantId, req.query.from, req.query.to)));
      const day = (s: string) => s.slice(0, 10);
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="payments-${day(req.query.from)}-to-${day(req.query.to)}.csv"`)
        .send(csv);
    },
  );

  // The same export, followed and cancellable from the screen (export-jobs.ts).
  const exportJobs = createExportJobs(deps.reports, deps.clock, (err) => app.log.error({ err }, 'payments export failed'));
  app.addHook('onClose', async () => exportJobs.close());
  r.post(
    '/reports/payments-exports',
    {
      preValidation: finance,
      schema: { tags, summary: 'Start a payments export that reports its progress and can be cancelled', querystring: MerchantScopeQuery, body: PaymentsExportStart, response: { 202: PaymentsExportAnswer, ...errors } },
    },
    async (req, reply) => {
      const staff = requireStaff(req);
      const merchantId = await merchantScope(deps.db, staff, req.query.merchant_id);
      const job = await exportJobs.start(staff.id, paymentsExportRange(merchantId, req.body.from, req.body.to));
      return reply.code(202).send({ export: job });
    },
  );
  r.get(
    '/reports/payments-exports/:export_id',
    { preValidation: finance, schema: { tags, summary: 'A payments export: its state and the rows written so far', params: PaymentsExportIdParams, response: { 200: PaymentsExportAnswer, ...errors } } },
    async (req) => ({ export: exportJobs.get(requireStaff(req).id, req.params.export_id) }),
  );
  r.post(
    '/reports/payments-exports/:export_id/cancel',
    { preValidation: finance, schema: { tags, summary: 'Cancel a running payments export: it stops and its file is deleted', params: PaymentsExportIdParams, response: { 200: PaymentsExportAnswer, ...errors } } },
    async (req) => ({ export: await exportJobs.cancel(requireStaff(req).id, req.params.export_id) }),
  );
  r.get(
    '/reports/payments-exports/:export_id/file',
    { preValidation: finance, schema: { tags, summary: 'The CSV of a completed payments export (409 while running, cancelled or failed)', params: PaymentsExportIdParams } },
    async (req, reply) => {
      const { stream, name } = exportJobs.file(requireStaff(req).id, req.params.export_id);
      return reply.type('text/csv; charset=utf-8').header('content-disposition', `attachment; filename="${name}"`).send(stream);
    },
  );
}
