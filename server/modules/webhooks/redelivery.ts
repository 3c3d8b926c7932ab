import type { Db } from '../../db/database';
import type { Clock } from '../../lib/clock';
import { AppError, invalid, notFound } from '../../lib/errors';
import { newDeliveryId, type Outbox } from './outbox';
import { ALL_MERCHANTS, type WebhookScope } from './scope';
import { deliveriesQuery, visibleEndpoint } from './webhooks.repository';
import type { RecoverRequest, RecoverResult, RedeliverResult } from '../../../shared/schemas/webhooks';

/**
 * Sending events again by hand: one event (redeliverEvent) or every delivery that failed in a
 * time range (recoverFailedDeliveries). Both make the deliveries due now as `manual`, in one
 * transaction, then tell the outbox's dispatchers (documented in webhooks.service.ts).
 */

export async function redeliverEvent(
  db: Db,
  clock: Clock,
  input: { eventId: string; endpointId?: string | undefined },
  scope: WebhookScope,
  outbox?: Pick<Outbox, 'notify'>,
): Promise<RedeliverResult> {
  const nowIso = clock.now().toISOString();
  const ids = await db.transaction().execute(async (trx) => {
    const event = await trx
      .selectFrom('events as e')
      .innerJoin('integrations as i', 'i.id', 'e.integration_id')
      .select(['e.id', 'e.type', 'e.session_id', 'e.integration_id', 'i.merchant_id', 'e.payload'])
      .where('e.id', '=', input.eventId)
      .executeTakeFirst();
    if (!event || (scope.merchantId !== null && event.merchant_id !== scope.merchantId)) throw notFound(`event ${input.eventId}`);
    // db:prune empties the body of an old event every endpoint received (WEBHOOK_BODY_RETENTION_DAYS).
    if (event.payload === '') throw new AppError('STATE_CONFLICT', `event ${input.eventId} is past the webhook body retention: its body is no longer kept, so it cannot be sent again`);
    let endpoints = await trx.selectFrom('webhook_endpoints').select(['id', 'status']).where('integration_id', '=', event.integration_id).execute();
    if (input.endpointId !== undefined) {
      endpoints = endpoints.filter((e) => e.id === input.endpointId);
      if (endpoints.length === 0) throw notFound(`webhook endpoint ${input.endpointId} of this event's integration`);
      if (endpoints[0]!.status !== 'active') throw new AppError('STATE_CONFLICT', `webhook endpoint ${input.endpointId} is disabled; enable it before redelivering`);
    }
    const active = endpoints.filter((e) => e.status === 'active');
    if (active.length === 0) throw new AppError('STATE_CONFLICT', `the integration of event ${input.eventId} has no active webhook endpoint`);
    const existing = await trx
      .selectFrom('webhook_deliveries')
      .select(['id', 'endpoint_id', 'status', 'locked_until'])
      .where('event_id', '=', event.id)
      .where(
        'endpoint_id',
        'in',
        active.map((e) => e.id),
      )
      .execute();
    if (existing.some((d) => d.status === 'pending' && d.locked_until !== null && d.locked_until > nowIso)) {
      throw new AppError('STATE_CONFLICT', `an attempt to deliver event ${input.eventId} is in flight; retry in a few seconds`);
    }
    const out: string[] = [];
    for (const e of active) {
      const d = existing.find((x) => x.endpoint_id === e.id);
      if (d) {
        await trx
          .updateTable('webhook_deliveries')
          .set({ status: 'pending', next_attempt_at: nowIso, manual_requested_at: nowIso, held_at: null, schedule_step: 0, claimed_by: null, locked_until: null, updated_at: nowIso })
          .where('id', '=', d.id)
          .execute();
        out.push(d.id);
      } else {
        // An endpoint added after the event: its first delivery of it.
        const id = newDeliveryId();
        await trx
          .insertInto('webhook_deliveries')
          .values({
            id,
            event_id: event.id,
            endpoint_id: e.id,
            integration_id: event.integration_id,
            session_id: event.session_id,
            event_type: event.type,
            status: 'pending',
            attempt_count: 0,
            schedule_step: 0,
            next_attempt_at: nowIso,
            manual_requested_at: nowIso,
            claimed_by: null,
            locked_until: null,
            last_attempt_at: null,
            last_status_code: null,
            last_error: null,
            delivered_at: null,
            created_at: nowIso,
            updated_at: nowIso,
          })
          .execute();
        out.push(id);
      }
    }
    return out;
  });
  outbox?.notify();
  const deliveries = await deliveriesQuery(db, ALL_MERCHANTS).where('d.id', 'in', ids).orderBy('d.id').execute();
  return { event_id: input.eventId, deliveries };
}

export async function recoverFailedDeliveries(db: Db, clock: Clock, input: RecoverRequest, scope: WebhookScope, outbox?: Pick<Outbox, 'notify'>): Promise<RecoverResult> {
  const since = new Date(input.since);
  if (Number.isNaN(since.getTime())) throw invalid('since', 'must be an ISO 8601 date-time');
  const until = input.until ? new Date(input.until) : undefined;
  if (until && Number.isNaN(until.getTime())) throw invalid('until', 'must be an ISO 8601 date-time');
  if (input.endpoint_id) await visibleEndpoint(db, input.endpoint_id, scope);
  const nowIso = clock.now().toISOString();
  const result = await db.transaction().execute(async (trx) => {
    let q = trx
      .selectFrom('webhook_deliveries as d')
      .innerJoin('webhook_endpoints as w', 'w.id', 'd.endpoint_id')
      .innerJoin('integrations as i', 'i.id', 'd.integration_id')
      .select(['d.id', 'w.status as endpoint_status'])
      .where('d.status', '=', 'failed')
      .where('d.updated_at', '>=', since.toISOString());
    if (until) q = q.where('d.updated_at', '<', until.toISOString());
    if (input.endpoint_id) q = q.where('d.endpoint_id', '=', input.endpoint_id);
    if (input.integration_id) q = q.where('d.integration_id', '=', input.integration_id);
    if (scope.merchantId !== null) q = q.where('i.merchant_id', '=', scope.merchantId);
    const failed = await q.execute();
    const ids = failed.filter((d) => d.endpoint_status === 'active').map((d) => d.id);
    for (let i = 0; i < ids.length; i += 500) {
      await trx
        .updateTable('webhook_deliveries')
        .set({ status: 'pending', next_attempt_at: nowIso, manual_requested_at: nowIso, schedule_step: 0, claimed_by: null, locked_until: null, updated_at: nowIso })
        .where('id', 'in', ids.slice(i, i + 500))
        .where('status', '=', 'failed')
        .execute();
    }
    return { recovered: ids.length, delivery_ids: ids, skipped_disabled_endpoints: failed.length - ids.length };
  });
  if (result.recovered > 0) outbox?.notify();
  return result;
}

