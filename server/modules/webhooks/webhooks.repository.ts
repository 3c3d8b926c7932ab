import type { Db } from '../../db/database';
import type { WebhookEndpointsTable } from '../../db/schema';
import { notFound } from '../../lib/errors';
import { ALL_MERCHANTS, deliveryStatusSql, type WebhookScope } from './scope';
import type { ATTEMPT_SORTS, WebhookAttempt } from '../../../shared/schemas/webhooks';

/**
 * The webhook area's read queries, each scoped to the caller's merchant: deliveries and
 * attempts as the delivery log shows them, the CLI tail, and the endpoint a caller may see.
 * Writes stay beside the rule they carry out (outbox, hold, redelivery, outcomes, endpoints).
 */

export function deliveriesQuery(db: Db, scope: WebhookScope) {
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

export function attemptsQuery(db: Db, scope: WebhookScope) {
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
export const attemptView = ({ seq: _seq, request_headers, response_headers, ...a }: AttemptRow): WebhookAttempt => ({
  ...a,
  request_headers: parseHeaders(request_headers),
  response_headers: parseHeaders(response_headers),
});

/** Sort keys of the delivery log → columns (a fixed map: no column name ever comes from the request). */
export const ATTEMPT_SORT_COLUMNS = {
  started_at: 'a.started_at',
  event_type: 'd.event_type',
  attempt_number: 'a.attempt_number',
  status_code: 'a.status_code',
  latency_ms: 'a.latency_ms',
  outcome: 'a.outcome',
} as const satisfies Record<(typeof ATTEMPT_SORTS)[number], string>;

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

/** Loads an endpoint the caller may see, or 404. */
export async function visibleEndpoint(db: Db, endpointId: string, scope: WebhookScope): Promise<WebhookEndpointsTable & { merchant_id: string }> {
  const row = await db
    .selectFrom('webhook_endpoints as w')
    .innerJoin('integrations as i', 'i.id', 'w.integration_id')
    .selectAll('w')
    .select('i.merchant_id')
    .where('w.id', '=', endpointId)
    .executeTakeFirst();
  if (!row || (scope.merchantId !== null && row.merchant_id !== scope.merchantId)) throw notFound(`webhook endpoint ${endpointId}`);
  return row;
}

