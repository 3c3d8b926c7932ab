import type { Db } from '../../db/database';
import { invalid, notFound } from '../../lib/errors';
import { boundedTotal, LIST_TOTAL_CAP } from '../../lib/list-total';
import { deliveryStatusSql, type WebhookScope } from './scope';
import { ATTEMPT_SORT_COLUMNS, attemptsQuery, attemptView, deliveriesQuery } from './webhooks.repository';
import { AttemptListQuery, DeliveryListQuery, type AttemptList, type DeliveryDetail, type DeliveryList } from '../../../shared/schemas/webhooks';

/**
 * Webhook operations for the back office and the operator CLI. Routes are thin wrappers:
 * validate with the zod shapes in shared/schemas/webhooks.ts, resolve the caller's merchant scope,
 * call one function, return its result.
 *
 * Scope: every function takes `scope: { merchantId: string | null }`. A staff member bound
 * to a merchant passes that merchant's id and sees only its integrations; resources of
 * other merchants answer 404 NOT_FOUND as if absent. `null` (admin, CLI) sees everything.
 *
 *   listAttempts(db, query, scope): AttemptList
 *       The delivery log, newest first. query (AttemptListQuery): endpoint_id, integration_id,
 *       event_id, event_type, session_id, status (of the delivery: pending|held|succeeded|failed),
 *       outcome (of the attempt: succeeded|failed), kind (initial|automatic_retry|manual),
 *       since/until (ISO, on started_at), limit (1–200, 50), cursor (next_cursor). `total`
 *       counts at most `cap` attempts (server/lib/list-total.ts); `offset` reads what it skips.
 *   listDeliveries(db, query, scope): DeliveryList
 *       One row per event × endpoint with its current state; same filters (no outcome/kind).
 *   getDelivery(db, deliveryId, scope): DeliveryDetail        delivery + payload + attempts
 *   redeliverEvent(db, clock, { eventId, endpointId? }, scope, outbox?): RedeliverResult
 *       Manual redelivery of one event to every active endpoint of its integration (or the
 *       one named): one `manual` attempt at once, then the normal retry schedule if it fails.
 *       409 STATE_CONFLICT when an attempt for it is in flight, when the named endpoint is
 *       disabled, or when the integration has no active endpoint.
 *   recoverFailedDeliveries(db, clock, { since, until?, endpoint_id?, integration_id? }, scope, outbox?): RecoverResult
 *       Svix's "recover": every delivery that became `failed` at or after `since` (on an
 *       endpoint that is active now) is queued again as a manual redelivery.
 *   endpointHealth(db, clock, { integrationId?, endpointId?, windowHours = 24 }, scope): { object, endpoints }
 *       Per endpoint: status, backlog (pending, held), success rate and latency over the window, last error.
 *   rotateEndpointSecret(db, clock, ids, endpointId, { overlapHours = 24 }, scope): RotatedSecret
 *       New secret (returned this once). The old one keeps signing beside it (two `v1=`)
 *       until `previous_secret_expires_at`; 0 hours ends the old one at once. Max 168.
 *   disableEndpoint(db, clock, endpointId, reason, scope): WebhookEndpoint
 *       No attempts to it any more; its pending deliveries, and those of events recorded
 *       while it stays disabled, are **held** (hold.ts).
 *   enableEndpoint(db, clock, endpointId, scope, outbox?): EnabledEndpoint
 *       Active again (after a 410 or a manual disable); its held deliveries are released and
 *       sent one at a time in event order (`released_deliveries` says how many).
 * This file owns the delivery log (list and detail); the others live beside their rule and
 * are re-exported here: redelivery.ts, health.ts, endpoints.ts (rotation, disable, enable).
 *
 * Every mutating function is a handful of conditional updates; the dispatcher in this process
 * is poked at once, one in another process (the server, when the CLI calls) within its poll
 * interval (0.5 s).
 */
export { ALL_MERCHANTS, type WebhookScope } from './scope';
export { recoverFailedDeliveries, redeliverEvent } from './redelivery';
export { endpointHealth } from './health';
export {
  disableEndpoint,
  enableEndpoint,
  rotateEndpointSecret,
} from './endpoints';


const encodeCursor = (parts: string[]): string => Buffer.from(parts.join('\n')).toString('base64url');
function decodeCursor(cursor: string, n: number): string[] {
  const parts = Buffer.from(cursor, 'base64url').toString('utf8').split('\n');
  if (parts.length !== n) throw invalid('cursor', 'is not a cursor this list returned');
  return parts;
}

export async function listDeliveries(db: Db, query: DeliveryListQuery, scope: WebhookScope): Promise<DeliveryList> {
  const f = DeliveryListQuery.parse(query);
  let q = deliveriesQuery(db, scope);
  if (f.endpoint_id) q = q.where('d.endpoint_id', '=', f.endpoint_id);
  if (f.integration_id) q = q.where('d.integration_id', '=', f.integration_id);
  if (f.event_id) q = q.where('d.event_id', '=', f.event_id);
  if (f.event_type) q = q.where('d.event_type', '=', f.event_type);
  if (f.session_id) q = q.where('d.session_id', '=', f.session_id);
  if (f.status) q = q.where(deliveryStatusSql, '=', f.status);
  if (f.cursor) {
    const [at, id] = decodeCursor(f.cursor, 2) as [string, string];
    // `created_at <= at` first: an index range both engines take (the OR alone is not one, and a
    // deep page walked the index from the newest delivery: 55 ms on SQLite, 247 ms on PostgreSQL
    // at a million deliveries).
    q = q.where((eb) => eb.and([eb('d.created_at', '<=', at), eb.or([eb('d.created_at', '<', at), eb('d.id', '<', id)])]));
  }
  const rows = await q.orderBy('d.created_at', 'desc').orderBy('d.id', 'desc').limit(f.limit + 1).execute();
  const page = rows.slice(0, f.limit);
  const last = page.at(-1);
  return { object: 'list', deliveries: page, next_cursor: rows.length > f.limit && last ? encodeCursor([last.created_at, last.id]) : null };
}

export async function listAttempts(db: Db, query: AttemptListQuery, scope: WebhookScope, cap: number = LIST_TOTAL_CAP): Promise<AttemptList> {
  const f = AttemptListQuery.parse(query);
  // Conditions on the attempt itself, applied to the page and to the count.
  const own: Array<['a.endpoint_id' | 'a.outcome' | 'a.kind' | 'a.started_at', '=' | '>=' | '<', string]> = [];
  if (f.endpoint_id) own.push(['a.endpoint_id', '=', f.endpoint_id]);
  if (f.outcome) own.push(['a.outcome', '=', f.outcome]);
  if (f.kind) own.push(['a.kind', '=', f.kind]);
  if (f.since) own.push(['a.started_at', '>=', new Date(f.since).toISOString()]);
  if (f.until) own.push(['a.started_at', '<', new Date(f.until).toISOString()]);
  let q = attemptsQuery(db, scope);
  if (f.integration_id) q = q.where('d.integration_id', '=', f.integration_id);
  if (f.event_type) q = q.where('d.event_type', '=', f.event_type);
  if (f.session_id) q = q.where('d.session_id', '=', f.session_id);
  if (f.status) q = q.where(deliveryStatusSql, '=', f.status);
  // Without a filter on the delivery, the count reads the attempts alone: each one has
  // its delivery (NOT NULL foreign key), and the merchant scope is the attempt's endpoint, so the
  // joins of the page, which fetch every delivery row, would not change it.
  const onDelivery = Boolean(f.integration_id || f.event_type || f.session_id || f.status);
  let count = db.selectFrom('webhook_delivery_attempts as a');
  if (scope.merchantId !== null) {
    const endpoints = db.selectFrom('webhook_endpoints as w').innerJoin('integrations as i', 'i.id', 'w.integration_id').select('w.id').where('i.merchant_id', '=', scope.merchantId);
    count = count.where('a.endpoint_id', 'in', endpoints);
  }
  for (const [column, op, value] of own) {
    q = q.where(column, op, value);
    count = count.where(column, op, value);
  }
  if (f.event_id) {
    // An event's attempts through its deliveries: the attempt log has no index on event_id (migration 0027).
    const eventId = f.event_id;
    const ofEvent = db.selectFrom('webhook_deliveries as e').select('e.id').where('e.event_id', '=', eventId);
    q = q.where('a.delivery_id', 'in', ofEvent);
    count = count.where('a.delivery_id', 'in', ofEvent);
  }
  // Outcome, kind, event type and status have no index: those counts walk the attempts newest
  // first, as the page does, and stop at the cap (the planner would otherwise scan every delivery).
  const unindexed = Boolean(f.outcome || f.kind || f.event_type || f.status);
  const total = onDelivery ? await boundedTotal(db, unindexed ? q.orderBy('a.seq', 'desc') : q, cap, { keepOrder: unindexed }) : await boundedTotal(db, unindexed ? count.orderBy('a.seq', 'desc') : count, cap, { keepOrder: unindexed });
  if (f.sort !== undefined || f.offset !== undefined) {
    if (f.cursor) throw invalid('cursor', 'cannot be combined with sort or offset; page with offset');
    const sort = f.sort ?? 'started_at';
    // Ties in the order: newest first; seq keeps pages stable.
    const rows = await q
      .orderBy(ATTEMPT_SORT_COLUMNS[sort], f.dir)
      .orderBy('a.seq', sort === 'started_at' ? f.dir : 'desc')
      .limit(f.limit)
      .offset(f.offset ?? 0)
      .execute();
    return { object: 'list', attempts: rows.map(attemptView), ...total, next_cursor: null };
  }
  if (f.cursor) {
    const [seq] = decodeCursor(f.cursor, 1);
    if (!/^\d+$/.test(seq ?? '')) throw invalid('cursor', 'is not a cursor this list returned');
    q = q.where('a.seq', '<', Number(seq));
  }
  const rows = await q.orderBy('a.seq', 'desc').limit(f.limit + 1).execute();
  const page = rows.slice(0, f.limit);
  const last = page.at(-1);
  return { object: 'list', attempts: page.map(attemptView), ...total, next_cursor: rows.length > f.limit && last ? encodeCursor([String(last.seq)]) : null };
}

export async function getDelivery(db: Db, deliveryId: string, scope: WebhookScope): Promise<DeliveryDetail> {
  const d = await deliveriesQuery(db, scope).where('d.id', '=', deliveryId).executeTakeFirst();
  if (!d) throw notFound(`webhook delivery ${deliveryId}`);
  const event = await db.selectFrom('events').select('payload').where('id', '=', d.event_id).executeTakeFirstOrThrow();
  const attempts = await attemptsQuery(db, scope).where('a.delivery_id', '=', deliveryId).orderBy('a.seq').execute();
  return { ...d, payload: event.payload, attempts: attempts.map(attemptView) };
}

;
