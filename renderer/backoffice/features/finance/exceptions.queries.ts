import { keepPreviousData, queryOptions } from '@tanstack/react-query';
import { ExceptionItemList, ExceptionList, ExceptionReview, WorkCounts, type ExceptionKind, type ExceptionStatus } from '../../../../shared/schemas/finance-exceptions';
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
  items: (api: BackOfficeApi, merchantId: string | undefined, f: { status: ExceptionStatus | 'all'; kind: ExceptionKind | ''; invoice: string; limit: number; offset: number }) =>
    queryOptions({
      queryKey: ['exceptions', api.userId, merchantId ?? 'own', 'items', f] as const,
      queryFn: ({ signal }) => api.get(`/exception-items${qs({ merchant_id: merchantId, status: f.status, kind: f.kind, invoice_ref: f.invoice, limit: f.limit, offset: f.offset })}`, signal, ExceptionItemList),
      refetchInterval: 15_000,
      placeholderData: keepPreviousData,
    }),
};

/** What waits for the signed-in user (menu and landing page). */
export const workCountsQuery = (api: BackOfficeApi) =>
  queryOptions({
    queryKey: ['work-counts', api.userId] as const,
    queryFn: ({ signal }) => api.get('/work-counts', signal, WorkCounts),
    // Kept fresh while the back office is open (and on focus): deposits arrive from other counters.
    refetchInterval: 10_000,
  });

export const reviewException = (api: BackOfficeApi, merchantId: string | undefined, invoiceRef: string, status: ExceptionStatus, note: string) =>
  api.post(`/exception-items/${encodeURIComponent(invoiceRef)}/review${qs({ merchant_id: merchantId })}`, { status, note }, ExceptionReview);

export const exceptionsCsvPath = (merchantId: string | undefined, kind: ExceptionKind | '') => `/reports/exceptions.csv${qs({ merchant_id: merchantId, kind })}`;
