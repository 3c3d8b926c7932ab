import { keepPreviousData, queryOptions } from '@tanstack/react-query';
import { AuditList } from '../../../../shared/schemas/backoffice';
import { qs, type BackOfficeApi } from '../common/api';
import { pagePosition } from '../common/paging';

export interface AuditFilters {
  action: string;
  actor: string;
  /** ISO instants of the chosen local days (to: exclusive). */
  from: string | undefined;
  to: string | undefined;
}

export const auditQueries = {
  list: (api: BackOfficeApi, f: AuditFilters & { sort: string; dir: 'asc' | 'desc'; limit: number; offset: number; cursor?: string | undefined }) =>
    queryOptions({
      queryKey: ['audit', api.userId, f] as const,
      queryFn: ({ signal }) => api.get(`/audit${qs({ action: f.action, actor: f.actor, from: f.from, to: f.to, sort: f.sort, dir: f.dir, limit: f.limit, ...pagePosition(f) })}`, signal, AuditList),
      placeholderData: keepPreviousData,
      refetchInterval: 15_000,
    }),
};

export const auditCsvPath = (f: AuditFilters) => `/audit/export.csv${qs({ action: f.action, actor: f.actor, from: f.from, to: f.to })}`;
