import { keepPreviousData, queryOptions } from '@tanstack/react-query';
import { qs, type BackOfficeApi } from '../common/api';

/** Shapes of the webhooks API (server/webhooks/webhooks.schemas.ts), as the screen reads them. */
export interface WebhookAttempt {
  id: string;
  delivery_id: string;
  event_id: string;
  event_type: string;
  session_id: string;
  endpoint_id: string;
  url: string;
  attempt_number: number;
  kind: 'initial' | 'automatic_retry' | 'manual';
  started_at: string;
  latency_ms: number;
  outcome: 'succeeded' | 'failed';
  status_code: number | null;
  error: string | null;
  response_excerpt: string | null;
  /** Headers sent (signature included); null for attempts older than migration 0006. */
  request_headers: Record<string, string> | null;
  /** The receiver's answer headers (capped at 4 KiB); null without an answer. */
  response_headers: Record<string, string> | null;
  next_attempt_at: string | null;
  delivery_status: 'pending' | 'held' | 'succeeded' | 'failed';
}
export interface DeliveryDetail {
  id: string;
  event_id: string;
  event_type: string;
  session_id: string;
  endpoint_url: string;
  status: 'pending' | 'held' | 'succeeded' | 'failed';
  attempt_count: number;
  next_attempt_at: string | null;
  delivered_at: string | null;
  created_at: string;
  payload: string;
  attempts: WebhookAttempt[];
}
export interface EndpointHealth {
  endpoint_id: string;
  merchant_id: string;
  url: string;
  status: 'active' | 'disabled';
  disabled_reason: string | null;
  /** `held`: kept while the endpoint is disabled, sent in event order when it is enabled. */
  deliveries: { pending: number; held: number; succeeded: number; failed: number };
  window_hours: number;
  attempts_in_window: number;
  success_rate: number | null;
  avg_latency_ms: number | null;
  consecutive_failures: number;
  last_success_at: string | null;
  last_failure_at: string | null;
  last_error: string | null;
}

export interface AttemptFilters {
  outcome: string;
  event_type: string;
  session_id: string;
  /** A server sort key (ATTEMPT_SORTS). */
  sort: string;
  dir: 'asc' | 'desc';
  offset: number;
}

export const ATTEMPTS_PAGE = 25;

export const webhookQueries = {
  attempts: (api: BackOfficeApi, merchantId: string | undefined, f: AttemptFilters) =>
    queryOptions({
      queryKey: ['webhooks', api.userId, 'attempts', merchantId ?? 'all', f] as const,
      queryFn: ({ signal }) =>
        api.get<{ attempts: WebhookAttempt[]; total: number }>(
          `/webhooks/attempts${qs({ merchant_id: merchantId, outcome: f.outcome, event_type: f.event_type, session_id: f.session_id, sort: f.sort, dir: f.dir, offset: f.offset, limit: ATTEMPTS_PAGE })}`,
          signal,
        ),
      refetchInterval: 5_000,
      placeholderData: keepPreviousData,
    }),
  delivery: (api: BackOfficeApi, id: string) =>
    queryOptions({
      queryKey: ['webhooks', api.userId, 'delivery', id] as const,
      queryFn: ({ signal }) => api.get<DeliveryDetail>(`/webhooks/deliveries/${encodeURIComponent(id)}`, signal),
      refetchInterval: 5_000,
    }),
  health: (api: BackOfficeApi, merchantId: string | undefined) =>
    queryOptions({
      queryKey: ['webhooks', api.userId, 'health', merchantId ?? 'all'] as const,
      queryFn: ({ signal }) => api.get<{ endpoints: EndpointHealth[] }>(`/webhooks/endpoints/health${qs({ merchant_id: merchantId })}`, signal),
      refetchInterval: 15_000,
    }),
};

/** Admin: the endpoint is active again; its held deliveries are sent, oldest event first. */
export const enableEndpoint = (api: BackOfficeApi, endpointId: string) =>
  api.post<{ status: 'active'; released_deliveries: number }>(`/webhooks/endpoints/${encodeURIComponent(endpointId)}/enable`, {});
export const redeliver = (api: BackOfficeApi, eventId: string) => api.post<{ event_id: string }>(`/webhooks/events/${encodeURIComponent(eventId)}/redeliver`, {});
export const recover = (api: BackOfficeApi, merchantId: string | undefined, since: string) =>
  api.post<{ recovered: number; skipped_disabled_endpoints: number }>('/webhooks/recover', { since, ...(merchantId ? { merchant_id: merchantId } : {}) });
