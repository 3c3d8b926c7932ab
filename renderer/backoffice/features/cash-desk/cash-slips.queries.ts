import { queryOptions } from '@tanstack/react-query';
import { DepositResult, ScannedSlip, ShiftTotal } from '../../../../shared/schemas/backoffice';
import type { BackOfficeApi } from '../common/api';

/** Cash slips as the teller scans them (GET /cash-slips/{token}) and the deposit recorded on one. */
export const cashSlipQueries = {
  scanned: (api: BackOfficeApi, token: string) =>
    queryOptions({
      queryKey: ['cash-slips', api.userId, token] as const,
      queryFn: ({ signal }) => api.get(`/cash-slips/${encodeURIComponent(token)}`, signal, ScannedSlip),
      // A slip's state changes at the counter: always read it fresh.
      staleTime: 0,
      enabled: token.length > 0,
    }),
};

export function recordDeposit(api: BackOfficeApi, token: string, body: { amount_minor: number; note?: string }): Promise<DepositResult> {
  return api.post(`/cash-slips/${encodeURIComponent(token)}/deposits`, body, DepositResult);
}

/** The signed-in teller's cash-up for today (the server's day), refreshed as deposits are reviewed. */
export const shiftQueries = {
  today: (api: BackOfficeApi) =>
    queryOptions({
      queryKey: ['deposits', api.userId, 'shift-total'] as const,
      queryFn: ({ signal }) => api.get('/cash-desk/shift-total', signal, ShiftTotal),
      refetchInterval: 15_000,
    }),
};
