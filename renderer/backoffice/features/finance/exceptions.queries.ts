import { keepPreviousData, queryOptions } from '@tanstack/react-query';
import { ExceptionList, type ExceptionKind } from '../../../../shared/schemas/finance-exceptions';
import { qs, type BackOfficeApi } from '../common/api';

/** Finance exceptions of one merchant (a finance user's own: merchantId undefined; or the admin's pick). */
export const exceptionQueries = {
  list: (api: BackOfficeApi, merchantId: string | undefined, f: { kind: ExceptionKind | ''; limit: number; offset: number }) =>
    queryOptions({
      queryKey: ['exceptions', api.userId, merchantId ?? 'own', f] as const,
      queryFn: ({ signal }) => api.get(`/exceptions${qs({ merchant_id: merchantId, kind: f.kind, limit: f.limit, offset: f.offset })}`, signal, ExceptionList),
      // New payments can raise new exceptions at any time.
      refetchInterval: 15_000,
      placeholderData: keepPreviousData,
    }),
};

export const exceptionsCsvPath = (merchantId: string | undefined, kind: ExceptionKind | '') => `/reports/exceptions.csv${qs({ merchant_id: merchantId, kind })}`;
