import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../deps';
import { notFound } from '../../lib/errors';
import {
  AttemptList,
  AttemptListQuery,
  DeliveryDetail,
  DeliveryList,
  DeliveryListQuery,
  DisableEndpointRequest,
  EnabledEndpoint,
  EndpointHealthList,
  RecoverRequest,
  RecoverResult,
  RedeliverRequest,
  RedeliverResult,
  RotatedSecret,
  RotateSecretRequest,
  WebhookEndpoint,
} from '../../../shared/schemas/webhooks';
import {
  ALL_MERCHANTS,
  disableEndpoint,
  enableEndpoint,
  endpointHealth,
  getDelivery,
  listAttempts,
  listDeliveries,
  recoverFailedDeliveries,
  redeliverEvent,
  rotateEndpointSecret,
  type WebhookScope,
} from './webhooks.service';
import { actorOf, recordAudit, type AuditRecord } from '../audit';
import { allow, requireStaff, type StaffContext, staffErrors } from '../auth';
import type { AuditAction } from '../../../shared/schemas/backoffice';

const errors = staffErrors;
const tags = ['Back office: webhooks'];
const Scope = z.object({ merchant_id: z.string().max(80).optional() });

/**
 * Which deliveries a caller sees: a finance user its own merchant's (another merchant's are
 * 404); an admin every merchant's, or one named with `merchant_id`.
 */
async function scopeOf(deps: AppDeps, staff: StaffContext, requested: string | undefined): Promise<WebhookScope> {
  if (staff.role === 'finance') {
    if (requested && requested !== staff.merchantId) throw notFound(`merchant ${requested}`);
    return { merchantId: staff.merchantId ?? '' };
  }
  if (!requested) return ALL_MERCHANTS;
  const m = await deps.db.selectFrom('merchants').select('id').where('id', '=', requested).executeTakeFirst();
  if (!m) throw notFound(`merchant ${requested}`);
  return { merchantId: requested };
}

/** The webhooks screen: delivery log, attempt details, redelivery, recovery and endpoint health (service: server/modules/webhooks/). */
export async function webhookRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const readers = allow('finance', 'admin');
  const audit = (req: FastifyRequest, action: AuditAction, targetType: string, targetId: string | null, after: AuditRecord['after']) =>
    recordAudit(deps.db, deps, actorOf(requireStaff(req), req.ip), { action, targetType, targetId, after });

  r.get(
    '/webhooks/attempts',
    { preValidation: readers, schema: { tags, summary: 'The delivery log: every attempt, newest first', querystring: AttemptListQuery.extend(Scope.shape), response: { 200: AttemptList, ...errors } } },
    async (req) => {
      const { merchant_id, ...q } = req.query;
      return listAttempts(deps.db, q, await scopeOf(deps, requireStaff(req), merchant_id), deps.config.listTotalCap);
    },
  );
  r.get(
    '/webhooks/deliveries',
    { preValidation: readers, schema: { tags, summary: 'Deliveries (one per event and endpoint)', querystring: DeliveryListQuery.extend(Scope.shape), response: { 200: DeliveryList, ...errors } } },
    async (req) => {
      const { merchant_id, ...q } = req.query;
      return listDeliveries(deps.db, q, await scopeOf(deps, requireStaff(req), merchant_id));
    },
  );
  r.get(
    '/webhooks/deliveries/:delivery_id',
    {
      preValidation: readers,
      schema: { tags, summary: 'One delivery: the exact request body and every attempt', params: z.object({ delivery_id: z.string().min(1).max(80) }), response: { 200: DeliveryDetail, ...errors } },
    },
    async (req) => getDelivery(deps.db, req.params.delivery_id, await scopeOf(deps, requireStaff(req), undefined)),
  );
  r.post(
    '/webhooks/events/:event_id/redeliver',
    {
      preValidation: readers,
      schema: { tags, summary: 'Send one event again (same id, same body)', params: z.object({ event_id: z.string().min(1).max(80) }), body: RedeliverRequest, response: { 200: RedeliverResult, ...errors } },
    },
    async (req) => {
      const result = await redeliverEvent(deps.db, deps.clock, { eventId: req.params.event_id, endpointId: req.body.endpoint_id }, await scopeOf(deps, requireStaff(req), undefined), deps.outbox);
      await audit(req, 'webhook.redeliver', 'event', req.params.event_id, { deliveries: result.deliveries.map((d) => d.id) });
      return result;
    },
  );
  r.post(
    '/webhooks/recover',
    { preValidation: readers, schema: { tags, summary: 'Requeue every failed delivery since a time', body: RecoverRequest.extend(Scope.shape), response: { 200: RecoverResult, ...errors } } },
    async (req) => {
      const { merchant_id, ...body } = req.body;
      const result = await recoverFailedDeliveries(deps.db, deps.clock, body, await scopeOf(deps, requireStaff(req), merchant_id), deps.outbox);
      await audit(req, 'webhook.recover', 'webhook_deliveries', null, { since: body.since, until: body.until ?? null, recovered: result.recovered });
      return result;
    },
  );
  r.get(
    '/webhooks/endpoints/health',
    {
      preValidation: readers,
      schema: {
        tags,
        summary: 'Health of each endpoint: success rate, latency, failures in a row',
        querystring: Scope.extend({ window_hours: z.coerce.number().min(1).max(2160).optional() }),
        response: { 200: EndpointHealthList, ...errors },
      },
    },
    async (req) => endpointHealth(deps.db, deps.clock, { windowHours: req.query.window_hours }, await scopeOf(deps, requireStaff(req), req.query.merchant_id)),
  );

  const EndpointParams = z.object({ endpoint_id: z.string().min(1).max(80) });
  r.post(
    '/webhooks/endpoints/:endpoint_id/rotate-secret',
    {
      preValidation: allow('admin'),
      schema: { tags, summary: 'Rotate the signing secret (shown once); the old one keeps signing during the overlap', params: EndpointParams, body: RotateSecretRequest, response: { 200: RotatedSecret, ...errors } },
    },
    async (req) => {
      const result = await rotateEndpointSecret(deps.db, deps.clock, deps.ids, req.params.endpoint_id, { overlapHours: req.body.overlap_hours }, ALL_MERCHANTS);
      await audit(req, 'webhook_endpoint.rotate_secret', 'webhook_endpoint', req.params.endpoint_id, { previous_secret_expires_at: result.previous_secret_expires_at });
      return result;
    },
  );
  r.post(
    '/webhooks/endpoints/:endpoint_id/disable',
    { preValidation: allow('admin'), schema: { tags, summary: 'Disable an endpoint', params: EndpointParams, body: DisableEndpointRequest, response: { 200: WebhookEndpoint, ...errors } } },
    async (req) => {
      const result = await disableEndpoint(deps.db, deps.clock, req.params.endpoint_id, req.body.reason, ALL_MERCHANTS);
      await audit(req, 'webhook_endpoint.disable', 'webhook_endpoint', req.params.endpoint_id, { status: result.status, reason: req.body.reason });
      return result;
    },
  );
  r.post(
    '/webhooks/endpoints/:endpoint_id/enable',
    { preValidation: allow('admin'), schema: { tags, summary: 'Enable an endpoint again', description: 'Its held deliveries are sent, one at a time, oldest event first; the answer says how many (released_deliveries).', params: EndpointParams, response: { 200: EnabledEndpoint, ...errors } } },
    async (req) => {
      const result = await enableEndpoint(deps.db, deps.clock, req.params.endpoint_id, ALL_MERCHANTS, deps.outbox);
      await audit(req, 'webhook_endpoint.enable', 'webhook_endpoint', req.params.endpoint_id, { status: result.status, released_deliveries: result.released_deliveries });
      return result;
    },
  );
}
