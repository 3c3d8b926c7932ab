import { keepPreviousData, queryOptions } from '@tanstack/react-query';
import { CashDeposit, DepositFacets, DepositList, DepositReviewed, type DepositStatus } from '../../../../shared/schemas/backoffice';
import type { BackOfficeApi } from '../common/api';
import { qs } from '../common/api';
import { pagePosition } from '../common/paging';

export interface DepositFilter {
  status?: DepositStatus | undefined;
  /** Staff id of the recording teller. */
  recorded_by?: string | undefined;
  branch_id?: string | undefined;
  /** `YYYY-MM-DD`, inclusive, in the server's time zone. */
  from?: string | undefined;
  to?: string | undefined;
  limit?: number;
  offset?: number;
  /** The page's cursor (useListPages): sent instead of `offset`. */
  cursor?: string | undefined;
  /** A server sort key (DEPOSIT_SORTS); without it the queue is oldest first, the rest newest first. */
  sort?: { key: string; dir: 'asc' | 'desc' } | undefined;
}

/** Deposits: the supervisor's review queue, and a teller's own recent deposits. */
export const depositQueries = {
  all: (api: BackOfficeApi) => ['deposits', api.userId] as const,
  list: (api: BackOfficeApi, f: DepositFilter) => {
    const params = {
      status: f.status,
      recorded_by: f.recorded_by,
      branch_id: f.branch_id,
      from: f.from,
      to: f.to,
      limit: f.limit ?? 50,
      ...pagePosition({ offset: f.offset ?? 0, cursor: f.cursor }),
      sort: f.sort?.key,
      dir: f.sort?.dir,
    };
    return queryOptions({
      queryKey: ['deposits', api.userId, 'list', params] as const,
      queryFn: ({ signal }) => api.get(`/deposits${qs(params)}`, signal, DepositList),
      placeholderData: keepPreviousData,
      // The queue fills from other counters: poll it while the screen is open.
      refetchInterval: 5_000,
    });
  },
  one: (api: BackOfficeApi, id: string) =>
    queryOptions({
      queryKey: ['deposits', api.userId, 'one', id] as const,
      queryFn: ({ signal }) => api.get(`/deposits/${encodeURIComponent(id)}`, signal, CashDeposit),
    }),
  facets: (api: BackOfficeApi) =>
    queryOptions({
      queryKey: ['deposits', api.userId, 'facets'] as const,
      queryFn: ({ signal }) => api.get('/deposits/facets', signal, DepositFacets),
      staleTime: 60_000,
    }),
};

export const approveDeposit = (api: BackOfficeApi, id: string) => api.post(`/deposits/${encodeURIComponent(id)}/approve`, {}, DepositReviewed);
export const rejectDeposit = (api: BackOfficeApi, id: string, reason: string) =>
  api.post(`/deposits/${encodeURIComponent(id)}/reject`, { reason }, DepositReviewed);
