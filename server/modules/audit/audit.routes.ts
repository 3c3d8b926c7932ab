import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../deps';
import { AuditFilter, AuditList, AuditQuery } from '../../../shared/schemas/backoffice';
import { reportStream } from '../../http/report-stream';
import { allow, staffErrors } from '../../http/staff-access';
import { listAudit } from './audit.service';

const errors = staffErrors;

/** The audit trail, read-only (registered inside the back-office scope). */
export async function auditRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.get(
    '/audit',
    {
      preValidation: allow('admin', 'supervisor'),
      schema: { tags: ['Back office: audit'], summary: 'The audit trail of staff actions, newest first (read-only)', querystring: AuditQuery, response: { 200: AuditList, ...errors } },
    },
    async (req) => listAudit(deps.db, req.query, deps.config.listTotalCap),
  );
  r.get(
    '/audit/export.csv',
    {
      preValidation: allow('admin', 'supervisor'),
      schema: { tags: ['Back office: audit'], summary: 'The filtered audit trail as CSV, oldest first (action in words, target by name)', querystring: AuditFilter },
    },
    async (req, reply) => {
      const csv = reportStream(await deps.reports.open('auditCsv', req.query)); // the report worker (server/modules/reports/)
      return reply.type('text/csv; charset=utf-8').header('content-disposition', 'attachment; filename="audit-trail.csv"').send(csv);
    },
  );
}
