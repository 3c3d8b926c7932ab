import { infiniteQueryOptions, keepPreviousData, queryOptions } from '@tanstack/react-query';
import { InvoiceDetail, InvoiceList, MerchantList, PaymentsExportAnswer, RevenueLinesView, SessionDetail, SessionList } from '../../../../shared/schemas/backoffice';
import { qs, type BackOfficeApi } from '../common/api';
import { pagePosition } from '../common/paging';

export interface SessionFilters {
  status: string;
  rail: string;
  /** '' (both), 'live' or 'test'. */
  mode: string;
  /** Payer name, phone last 4, session id, invoice ref, slip, provider or bank reference. */
  q: string;
  amount_minor: number | undefined;
  from: string | undefined;
  to: string | undefined;
  sort: string;
  dir: 'asc' | 'desc';
  limit: number;
  offset: number;
  /** The page's cursor (useListPages): sent instead of `offset`. */
  cursor?: string | undefined;
}

/** Sessions per page on the invoice detail (the API's default; it takes 1–200). */
const INVOICE_SESSIONS_PAGE = 50;

/**
 * Finance reads, scoped to one merchant: a finance user's own (merchantId undefined: the
 * server knows it), or the one an admin picked.
 */
export const financeQueries = {
  merchants: (api: BackOfficeApi) =>
    queryOptions({
      queryKey: ['merchants', api.userId] as const,
      queryFn: ({ signal }) => api.get('/merchants', signal, MerchantList),
      staleTime: 60_000,
    }),
  sessions: (api: BackOfficeApi, merchantId: string | undefined, f: SessionFilters) =>
    queryOptions({
      queryKey: ['sessions', api.userId, merchantId ?? 'own', f] as const,
      queryFn: ({ signal }) =>
        api.get(
          `/sessions${qs({ merchant_id: merchantId, status: f.status, rail: f.rail, mode: f.mode || undefined, q: f.q, amount_minor: f.amount_minor, from: f.from, to: f.to, sort: f.sort, dir: f.dir, limit: f.limit, ...pagePosition(f) })}`,
          signal,
          SessionList,
        ),
      // Live: statuses change as payers pay and supervisors approve.
      refetchInterval: 5_000,
      placeholderData: keepPreviousData,
    }),
  session: (api: BackOfficeApi, id: string) =>
    queryOptions({
      queryKey: ['sessions', api.userId, 'detail', id] as const,
      queryFn: ({ signal }) => api.get(`/sessions/${encodeURIComponent(id)}`, signal, SessionDetail),
      refetchInterval: 5_000,
    }),
  /** `cursor` (the previous page's next_cursor) instead of `offset` when the screen has one: a deep page then costs what the first does. */
  invoices: (api: BackOfficeApi, merchantId: string | undefined, f: { q: string; remitted: string; sort: string; dir: string; limit: number; offset: number; cursor?: string | undefined }) =>
    queryOptions({
      queryKey: ['invoices', api.userId, merchantId ?? 'own', f] as const,
      queryFn: ({ signal }) =>
        api.get(
          `/invoices${qs({ merchant_id: merchantId, q: f.q, remitted: f.remitted, sort: f.sort, dir: f.dir, limit: f.limit, ...pagePosition(f) })}`,
          signal,
          InvoiceList,
        ),
      placeholderData: keepPreviousData,
    }),
  /**
   * One invoice, its sessions a page at a time (newest first): each page is a whole answer, so
   * the invoice's totals always come from the server's aggregate, never from the rows loaded.
   * `limit` is the server's default; a refetch re-reads every loaded page from the first.
   */
  invoice: (api: BackOfficeApi, merchantId: string | undefined, ref: string, limit = INVOICE_SESSIONS_PAGE) =>
    infiniteQueryOptions({
      queryKey: ['invoices', api.userId, merchantId ?? 'own', 'detail', ref, limit] as const,
      queryFn: ({ signal, pageParam }) =>
        api.get(`/invoices/${encodeURIComponent(ref)}${qs({ merchant_id: merchantId, limit, cursor: pageParam })}`, signal, InvoiceDetail),
      initialPageParam: undefined as string | undefined,
      getNextPageParam: (last) => last.next_cursor ?? undefined,
    }),
  revenueLines: (api: BackOfficeApi, merchantId: string | undefined) =>
    queryOptions({
      queryKey: ['revenue-lines', api.userId, merchantId ?? 'own'] as const,
      queryFn: ({ signal }) => api.get(`/revenue-lines${qs({ merchant_id: merchantId })}`, signal, RevenueLinesView),
    }),
};

export const setRevenueLineActive = (api: BackOfficeApi, merchantId: string | undefined, lineId: string, active: boolean) =>
  api.post(`/revenue-lines/${encodeURIComponent(lineId)}/${active ? 'activate' : 'deactivate'}${qs({ merchant_id: merchantId })}`, {}, RevenueLinesView);

/** A payments export run as a job on the server: started, followed (rows so far), cancelled, then fetched. */
export const paymentsExport = {
  start: (api: BackOfficeApi, merchantId: string | undefined, from: string, to: string) => api.post(`/reports/payments-exports${qs({ merchant_id: merchantId })}`, { from, to }, PaymentsExportAnswer),
  get: (api: BackOfficeApi, id: string, signal?: AbortSignal) => api.get(`/reports/payments-exports/${encodeURIComponent(id)}`, signal, PaymentsExportAnswer),
  cancel: (api: BackOfficeApi, id: string) => api.post(`/reports/payments-exports/${encodeURIComponent(id)}/cancel`, {}, PaymentsExportAnswer),
  file: (api: BackOfficeApi, id: string) => api.download(`/reports/payments-exports/${encodeURIComponent(id)}/file`),
};
