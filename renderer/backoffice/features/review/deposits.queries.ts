import { keepPreviousData, queryOptions } from '@tanstack/react-query';
import type { CashDeposit, DepositList, DepositStatus } from '../../../../shared/schemas/backoffice';
import type { BackOfficeApi } from '../common/api';
import { qs } from '../common/api';

/** Deposits: the supervisor's review queue, and a teller's own recent deposits. */
export const depositQueries = {
  all: (api: BackOfficeApi) => ['deposits', api.userId] as const,
  /** `sort`: a server sort key (DEPOSIT_SORTS); without it the queue is oldest first, the rest newest first. */
  list: (api: BackOfficeApi, status: DepositStatus | undefined, limit = 50, offset = 0, sort?: { key: string; dir: 'asc' | 'desc' }) =>
    queryOptions({
      queryKey: ['deposits', api.userId, status ?? 'all', limit, offset, sort?.key ?? '', sort?.dir ?? ''] as const,
      queryFn: ({ signal }) => api.get<DepositList>(`/deposits${qs({ status, limit, offset, sort: sort?.key, dir: sort?.dir })}`, signal),
      placeholderData: keepPreviousData,
      // The queue fills from other counters: poll it while the screen is open.
      refetchInterval: 5_000,
    }),
};

export const approveDeposit = (api: BackOfficeApi, id: string) => api.post<{ deposit: CashDeposit }>(`/deposits/${encodeURIComponent(id)}/approve`);
export const rejectDeposit = (api: BackOfficeApi, id: string, reason: string) =>
  api.post<{ deposit: CashDeposit }>(`/deposits/${encodeURIComponent(id)}/reject`, { reason });
