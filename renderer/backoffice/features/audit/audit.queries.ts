import { keepPreviousData, queryOptions } from '@tanstack/react-query';
import type { AuditList } from '../../../../shared/schemas/backoffice';
import { qs, type BackOfficeApi } from '../common/api';

export const auditQueries = {
  list: (api: BackOfficeApi, f: { action: string; actor: string; sort: string; dir: 'asc' | 'desc'; limit: number; offset: number }) =>
    queryOptions({
      queryKey: ['audit', api.userId, f] as const,
      queryFn: ({ signal }) => api.get<AuditList>(`/audit${qs({ action: f.action, actor: f.actor, sort: f.sort, dir: f.dir, limit: f.limit, offset: f.offset })}`, signal),
      placeholderData: keepPreviousData,
      refetchInterval: 15_000,
    }),
};
