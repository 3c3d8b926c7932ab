import { keepPreviousData, queryOptions } from '@tanstack/react-query';
import { qs, type BackOfficeApi } from '../common/api';

import {
  AttemptList,
  DeliveryDetail,
  EnabledEndpoint,
  EndpointHealthList,
  RecoverResult,
  RedeliverResult,
  type EndpointHealth,
} from '../../../../shared/schemas/webhooks';

/** The webhooks API's shapes are the server's own (shared/schemas/webhooks.ts), not retyped here. */
export type { EndpointHealth };

export interface AttemptFilters {
  outcome: string;
  event_type: string;
  session_id: string;
  endpoint_id: string;
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
        api.get(
          `/webhooks/attempts${qs({ merchant_id: merchantId, outcome: f.outcome, event_type: f.event_type, session_id: f.session_id, endpoint_id: f.endpoint_id, sort: f.sort, dir: f.dir, offset: f.offset, limit: ATTEMPTS_PAGE })}`,
          signal,
          AttemptList,
        ),
      refetchInterval: 5_000,
      placeholderData: keepPreviousData,
    }),
  delivery: (api: BackOfficeApi, id: string) =>
    queryOptions({
      queryKey: ['webhooks', api.userId, 'delivery', id] as const,
      queryFn: ({ signal }) => api.get(`/webhooks/deliveries/${encodeURIComponent(id)}`, signal, DeliveryDetail),
      refetchInterval: 5_000,
    }),
  health: (api: BackOfficeApi, merchantId: string | undefined) =>
    queryOptions({
      queryKey: ['webhooks', api.userId, 'health', merchantId ?? 'all'] as const,
      queryFn: ({ signal }) => api.get(`/webhooks/endpoints/health${qs({ merchant_id: merchantId })}`, signal, EndpointHealthList),
      refetchInterval: 15_000,
    }),
};

/** Admin: the endpoint is active again; its held deliveries are sent, oldest event first. */
export const enableEndpoint = (api: BackOfficeApi, endpointId: string) =>
  api.post(`/webhooks/endpoints/${encodeURIComponent(endpointId)}/enable`, {}, EnabledEndpoint);
export const redeliver = (api: BackOfficeApi, eventId: string) => api.post(`/webhooks/events/${encodeURIComponent(eventId)}/redeliver`, {}, RedeliverResult);
export const recover = (api: BackOfficeApi, merchantId: string | undefined, since: string) =>
  api.post('/webhooks/recover', { since, ...(merchantId ? { merchant_id: merchantId } : {}) }, RecoverResult);
