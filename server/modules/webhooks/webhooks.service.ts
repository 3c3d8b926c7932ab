import type { Db } from '../../db/database';
import type { Clock } from '../../lib/clock';
import { AppError, invalid, notFound } from '../../lib/errors';
import { newDeliveryId, type Outbox } from './outbox';
import { ALL_MERCHANTS, deliveryStatusSql, type WebhookScope } from './scope';
import { visibleEndpoint } from './endpoints';
import {
  ATTEMPT_SORTS,
  AttemptListQuery,
  DeliveryListQuery,
  type AttemptList,
  type DeliveryDetail,
  type DeliveryList,
  type RecoverRequest,
  type RecoverResult,
  type RedeliverResult,
  type WebhookAttempt,
  type WebhookDelivery,
} from '../../../shared/schemas/webhooks';

/**
 * Webhook operations for the back office and the operator CLI. Routes are thin wrappers:
 * validate with the zod shapes in webhooks.schemas.ts, resolve the caller's merchant scope,
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
 *       since/until (ISO, on started_at), limit (1–200, 50), cursor (next_cursor).
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
 * (The endpoint functions live in endpoints.ts.)
 *
 * Every mutating function is a handful of conditional updates; the dispatcher in this process
 * is poked at once, one in another process (the server, when the CLI calls) within its poll
 * interval (0.5 s).
 */
export { ALL_MERCHANTS, type WebhookScope } from './scope';
export {
  DEFAULT_ROTATION_OVERLAP_HOURS,
  MAX_ROTATION_OVERLAP_HOURS,
  disableEndpoint,
  enableEndpoint,
  endpointHealth,
  rotateEndpointSecret,
} from './endpoints';

const encodeCursor = (parts: string[]): string => Buffer.from(parts.join('\n')).toString('base64url');
function decodeCursor(cursor: string, n: number): string[] {
  const parts = Buffer.from(cursor, 'base64url').toString('utf8').split('\n');
  if (parts.length !== n) throw invalid('cursor', 'is not a cursor this list returned');
  return parts;
}

function deliveriesQuery(db: Db, scope: WebhookScope) {
  let q = db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_endpoints as w', 'w.id', 'd.endpoint_id')
    .innerJoin('integrations as i', 'i.id', 'd.integration_id')
    .select([
      'd.id',
      'd.event_id',
      'd.event_type',
      'd.session_id',
      'd.integration_id',
      'd.endpoint_id',
      'w.url as endpoint_url',
      deliveryStatusSql.as('status'),
      'd.attempt_count',
      'd.next_attempt_at',
      'd.last_attempt_at',
      'd.last_status_code',
      'd.last_error',
      'd.delivered_at',
      'd.created_at',
    ]);
  if (scope.merchantId !== null) q = q.where('i.merchant_id', '=', scope.merchantId);
  return q;
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
    q = q.where((eb) => eb.or([eb('d.created_at', '<', at), eb.and([eb('d.created_at', '=', at), eb('d.id', '<', id)])]));
  }
  const rows = await q.orderBy('d.created_at', 'desc').orderBy('d.id', 'desc').limit(f.limit + 1).execute();
  const page = rows.slice(0, f.limit);
  const last = page.at(-1);
  return { object: 'list', deliveries: page, next_cursor: rows.length > f.limit && last ? encodeCursor([last.created_at, last.id]) : null };
}

function attemptsQuery(db: Db, scope: WebhookScope) {
  let q = db
    .selectFrom('webhook_delivery_attempts as a')
    .innerJoin('webhook_deliveries as d', 'd.id', 'a.delivery_id')
    .innerJoin('integrations as i', 'i.id', 'd.integration_id')
    .select([
      'a.seq',
      'a.id',
      'a.delivery_id',
      'a.event_id',
      'd.event_type',
      'd.session_id',
      'a.endpoint_id',
      'a.url',
      'a.attempt_number',
      'a.kind',
      'a.started_at',
      'a.latency_ms',
      'a.outcome',
      'a.status_code',
      'a.error',
      'a.response_excerpt',
      'a.request_headers',
      'a.response_headers',
      'a.next_attempt_at',
      deliveryStatusSql.as('delivery_status'),
    ]);
  if (scope.merchantId !== null) q = q.where('i.merchant_id', '=', scope.merchantId);
  return q;
}

type AttemptRow = Omit<WebhookAttempt, 'request_headers' | 'response_headers'> & { seq: number; request_headers: string | null; response_headers: string | null };
const parseHeaders = (json: string | null): Record<string, string> | null => (json === null ? null : (JSON.parse(json) as Record<string, string>));
const attemptView = ({ seq: _seq, request_headers, response_headers, ...a }: AttemptRow): WebhookAttempt => ({
  ...a,
  request_headers: parseHeaders(request_headers),
  response_headers: parseHeaders(response_headers),
});

/** Sort keys of the delivery log → columns (a fixed map: no column name ever comes from the request). */
const ATTEMPT_SORT_COLUMNS = {
  started_at: 'a.started_at',
  event_type: 'd.event_type',
  attempt_number: 'a.attempt_number',
  status_code: 'a.status_code',
  latency_ms: 'a.latency_ms',
  outcome: 'a.outcome',
} as const satisfies Record<(typeof ATTEMPT_SORTS)[number], string>;

export async function listAttempts(db: Db, query: AttemptListQuery, scope: WebhookScope): Promise<AttemptList> {
  const f = AttemptListQuery.parse(query);
  let q = attemptsQuery(db, scope);
  if (f.endpoint_id) q = q.where('a.endpoint_id', '=', f.endpoint_id);
  if (f.integration_id) q = q.where('d.integration_id', '=', f.integration_id);
  if (f.event_id) q = q.where('a.event_id', '=', f.event_id);
  if (f.event_type) q = q.where('d.event_type', '=', f.event_type);
  if (f.session_id) q = q.where('d.session_id', '=', f.session_id);
  if (f.status) q = q.where(deliveryStatusSql, '=', f.status);
  if (f.outcome) q = q.where('a.outcome', '=', f.outcome);
  if (f.kind) q = q.where('a.kind', '=', f.kind);
  if (f.since) q = q.where('a.started_at', '>=', new Date(f.since).toISOString());
  if (f.until) q = q.where('a.started_at', '<', new Date(f.until).toISOString());
  const total = Number((await q.clearSelect().select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
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
    return { object: 'list', attempts: rows.map(attemptView), total, next_cursor: null };
  }
  if (f.cursor) {
    const [seq] = decodeCursor(f.cursor, 1);
    if (!/^\d+$/.test(seq ?? '')) throw invalid('cursor', 'is not a cursor this list returned');
    q = q.where('a.seq', '<', Number(seq));
  }
  const rows = await q.orderBy('a.seq', 'desc').limit(f.limit + 1).execute();
  const page = rows.slice(0, f.limit);
  const last = page.at(-1);
  return { object: 'list', attempts: page.map(attemptView), total, next_cursor: rows.length > f.limit && last ? encodeCursor([String(last.seq)]) : null };
}

export async function getDelivery(db: Db, deliveryId: string, scope: WebhookScope): Promise<DeliveryDetail> {
  const d = await deliveriesQuery(db, scope).where('d.id', '=', deliveryId).executeTakeFirst();
  if (!d) throw notFound(`webhook delivery ${deliveryId}`);
  const event = await db.selectFrom('events').select('payload').where('id', '=', d.event_id).executeTakeFirstOrThrow();
  const attempts = await attemptsQuery(db, scope).where('a.delivery_id', '=', deliveryId).orderBy('a.seq').execute();
  return { ...d, payload: event.payload, attempts: attempts.map(attemptView) };
}

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
      .select(['e.id', 'e.type', 'e.session_id', 'e.integration_id', 'i.merchant_id'])
      .where('e.id', '=', input.eventId)
      .executeTakeFirst();
    if (!event || (scope.merchantId !== null && event.merchant_id !== scope.merchantId)) throw notFound(`event ${input.eventId}`);
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

/** A delivery's attempts after `afterSeq`, oldest first: what `webhooks:tail` prints. */
export async function attemptsAfter(db: Db, afterSeq: number, limit: number, filter: { endpointId?: string | undefined } = {}) {
  let q = attemptsQuery(db, ALL_MERCHANTS).where('a.seq', '>', afterSeq);
  if (filter.endpointId) q = q.where('a.endpoint_id', '=', filter.endpointId);
  return q.orderBy('a.seq').limit(limit).execute();
}

/** The seq of the n-th newest attempt (so a tail starts with the last few), or 0. */
export async function tailStart(db: Db, lastN: number): Promise<number> {
  if (lastN <= 0) {
    const top = await db.selectFrom('webhook_delivery_attempts').select((eb) => eb.fn.max('seq').as('s')).executeTakeFirst();
    return Number(top?.s ?? 0);
  }
  const row = await db.selectFrom('webhook_delivery_attempts').select('seq').orderBy('seq', 'desc').offset(lastN).limit(1).executeTakeFirst();
  return row ? Number(row.seq) : 0;
}

export type { WebhookDelivery };
