import { keepPreviousData, queryOptions } from '@tanstack/react-query';
import { Overview } from '../../../../shared/schemas/overview';
import { qs, type BackOfficeApi } from '../common/api';

export interface OverviewFilters {
  from: string;
  to: string;
  currency: string | undefined;
  mode: 'all' | 'live' | 'test';
}

export const overviewQuery = (api: BackOfficeApi, merchantId: string | undefined, f: OverviewFilters) =>
  queryOptions({
    queryKey: ['overview', api.userId, merchantId ?? 'own', f] as const,
    queryFn: ({ signal }) => api.get(`/overview${qs({ merchant_id: merchantId, from: f.from, to: f.to, currency: f.currency, mode: f.mode })}`, signal, Overview),
    refetchInterval: 30_000,
    placeholderData: keepPreviousData,
  });
