import { z } from 'zod';
import { ListOffset, ListTotal, MAX_PAGE_SIZE } from './common';

/**
 * Shapes of the webhook back-office calls (server/modules/webhooks/webhooks.routes.ts), ready for
 * route schemas: query strings coerce, responses are what the service returns. The renderer
 * imports the types from here (renderer/backoffice/features/webhooks/webhooks.queries.ts).
 */

/** `held`: kept while the endpoint is disabled, sent when it is enabled (server/modules/webhooks/hold.ts). */
const DeliveryStatus = z.enum(['pending', 'held', 'succeeded', 'failed']);
const AttemptKind = z.enum(['initial', 'automatic_retry', 'manual']);
const AttemptOutcome = z.enum(['succeeded', 'failed']);
const WebhookEventType = z.enum(['checkout.session.completed', 'checkout.session.failed', 'checkout.session.expired']);

const Limit = z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).default(50);

export const ATTEMPT_SORTS = ['started_at', 'event_type', 'attempt_number', 'status_code', 'latency_ms', 'outcome'] as const;

/** The filters the deliveries and their attempts share (a delivery's endpoint, event, session and status). */
const DeliveryFilters = z.object({
  endpoint_id: z.string().max(80).optional(),
  integration_id: z.string().max(80).optional(),
  event_id: z.string().max(80).optional(),
  event_type: WebhookEventType.optional(),
  session_id: z.string().max(80).optional(),
  /** Status of the delivery (for an attempt: of the delivery it belongs to). */
  status: DeliveryStatus.optional(),
});

/** Filters of the delivery log (attempts, newest first). */
export const AttemptListQuery = DeliveryFilters.extend({
  /** Outcome of the attempt itself. */
  outcome: AttemptOutcome.optional(),
  kind: AttemptKind.optional(),
  since: z.iso.datetime({ offset: true }).optional(),
  until: z.iso.datetime({ offset: true }).optional(),
  limit: Limit,
  /** `next_cursor` of the previous page (newest-first order only: not with `sort` or `offset`). */
  cursor: z.string().max(40).optional(),
  /** Another order than newest first; pages then go by `offset` (which costs what it skips). */
  sort: z.enum(ATTEMPT_SORTS).optional(),
  dir: z.enum(['asc', 'desc']).default('desc'),
  /** At most MAX_OFFSET (it reads what it skips). */
  offset: ListOffset.optional(),
});
export type AttemptListQuery = z.input<typeof AttemptListQuery>;

/** Filters of the deliveries (one per event and endpoint, newest first). */
export const DeliveryListQuery = DeliveryFilters.extend({
  limit: Limit,
  cursor: z.string().max(200).optional(),
});
export type DeliveryListQuery = z.input<typeof DeliveryListQuery>;

export const WebhookAttempt = z.object({
  id: z.string(),
  delivery_id: z.string(),
  event_id: z.string(),
  event_type: WebhookEventType,
  session_id: z.string(),
  endpoint_id: z.string(),
  url: z.string(),
  attempt_number: z.number().int(),
  kind: AttemptKind,
  started_at: z.string(),
  latency_ms: z.number().int(),
  outcome: AttemptOutcome,
  status_code: z.number().int().nullable(),
  error: z.string().nullable(),
  response_excerpt: z.string().nullable(),
  /** The headers sent, signature included (null for attempts made before migration 0006). */
  request_headers: z.record(z.string(), z.string()).nullable(),
  /** The receiver's answer headers (allow-list: content-type, content-length, date, server, retry-after, location, x-request-id); null without an answer. */
  response_headers: z.record(z.string(), z.string()).nullable(),
  next_attempt_at: z.string().nullable(),
  delivery_status: DeliveryStatus,
});
export type WebhookAttempt = z.infer<typeof WebhookAttempt>;

const WebhookDelivery = z.object({
  id: z.string(),
  event_id: z.string(),
  event_type: WebhookEventType,
  session_id: z.string(),
  integration_id: z.string(),
  endpoint_id: z.string(),
  endpoint_url: z.string(),
  status: DeliveryStatus,
  attempt_count: z.number().int(),
  next_attempt_at: z.string().nullable(),
  last_attempt_at: z.string().nullable(),
  last_status_code: z.number().int().nullable(),
  last_error: z.string().nullable(),
  delivered_at: z.string().nullable(),
  created_at: z.string(),
});
type WebhookDelivery = z.infer<typeof WebhookDelivery>;

export const AttemptList = z.object({
  object: z.literal('list'),
  attempts: z.array(WebhookAttempt),
  /** Attempts matching the filters, over all pages, counted up to the cap (`total_capped`: there are more). */
  ...ListTotal,
  /** Newest-first order only (no `sort`, no `offset`); null on the last page. */
  next_cursor: z.string().nullable(),
});
export type AttemptList = z.infer<typeof AttemptList>;
export const DeliveryList = z.object({ object: z.literal('list'), deliveries: z.array(WebhookDelivery), next_cursor: z.string().nullable() });
export type DeliveryList = z.infer<typeof DeliveryList>;
export const DeliveryDetail = WebhookDelivery.extend({ payload: z.string(), attempts: z.array(WebhookAttempt) });
export type DeliveryDetail = z.infer<typeof DeliveryDetail>;

export const RedeliverRequest = z.object({ endpoint_id: z.string().max(80).optional() });
export const RedeliverResult = z.object({ event_id: z.string(), deliveries: z.array(WebhookDelivery) });
export type RedeliverResult = z.infer<typeof RedeliverResult>;

export const RecoverRequest = z.object({
  since: z.iso.datetime({ offset: true }),
  until: z.iso.datetime({ offset: true }).optional(),
  endpoint_id: z.string().max(80).optional(),
  integration_id: z.string().max(80).optional(),
});
export type RecoverRequest = z.input<typeof RecoverRequest>;
export const RecoverResult = z.object({ recovered: z.number().int(), delivery_ids: z.array(z.string()), skipped_disabled_endpoints: z.number().int() });
export type RecoverResult = z.infer<typeof RecoverResult>;

export const EndpointHealth = z.object({
  endpoint_id: z.string(),
  integration_id: z.string(),
  merchant_id: z.string(),
  url: z.string(),
  status: z.enum(['active', 'disabled']),
  disabled_reason: z.string().nullable(),
  /** End of the current secret-rotation overlap (two signatures sent until then), or null. */
  previous_secret_expires_at: z.string().nullable(),
  /** `pending`: due or waiting for a retry; `held`: kept while the endpoint is disabled, sent in event order when it is enabled. */
  deliveries: z.object({ pending: z.number().int(), held: z.number().int(), succeeded: z.number().int(), failed: z.number().int() }),
  oldest_pending_at: z.string().nullable(),
  /** Creation time of the oldest held delivery, or null. */
  oldest_held_at: z.string().nullable(),
  window_hours: z.number(),
  attempts_in_window: z.number().int(),
  succeeded_in_window: z.number().int(),
  /** Succeeded / all attempts in the window; null without attempts. */
  success_rate: z.number().nullable(),
  avg_latency_ms: z.number().nullable(),
  max_latency_ms: z.number().nullable(),
  /** Failed attempts since the last success. */
  consecutive_failures: z.number().int(),
  last_success_at: z.string().nullable(),
  last_failure_at: z.string().nullable(),
  last_error: z.string().nullable(),
});
export type EndpointHealth = z.infer<typeof EndpointHealth>;
export const EndpointHealthList = z.object({ object: z.literal('list'), endpoints: z.array(EndpointHealth) });
export type EndpointHealthList = z.infer<typeof EndpointHealthList>;

export const RotateSecretRequest = z.object({ overlap_hours: z.coerce.number().min(0).max(168).default(24) });
export const RotatedSecret = z.object({
  endpoint_id: z.string(),
  /** Shown this once. */
  secret: z.string(),
  previous_secret_expires_at: z.string().nullable(),
});
export type RotatedSecret = z.infer<typeof RotatedSecret>;

export const WebhookEndpoint = z.object({
  id: z.string(),
  integration_id: z.string(),
  url: z.string(),
  status: z.enum(['active', 'disabled']),
  disabled_reason: z.string().nullable(),
  previous_secret_expires_at: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type WebhookEndpoint = z.infer<typeof WebhookEndpoint>;
/** The endpoint once enabled, and how many held deliveries it released (sent now, in event order). */
export const EnabledEndpoint = WebhookEndpoint.extend({ released_deliveries: z.number().int() });
export type EnabledEndpoint = z.infer<typeof EnabledEndpoint>;
export const DisableEndpointRequest = z.object({ reason: z.string().trim().min(1).max(300) });
