import { queryOptions } from '@tanstack/react-query';
import { CashUp, CashUpDay, CashUpList, CashUpResult, type CashUpStatus, type DenominationCounts } from '../../../../shared/schemas/cash-up';
import { qs, type BackOfficeApi } from '../common/api';

/** The teller's cash-up of the day and the supervisor's sign-off queue (`/cash-desk/cash-up`, `/cash-ups`). */
export const cashUpQueries = {
  all: (api: BackOfficeApi) => ['cash-ups', api.userId] as const,
  day: (api: BackOfficeApi, currency: string) =>
    queryOptions({
      queryKey: ['cash-ups', api.userId, 'day', currency] as const,
      queryFn: ({ signal }) => api.get(`/cash-desk/cash-up${qs({ currency })}`, signal, CashUpDay),
      // Deposits are reviewed meanwhile: the expected figure moves until the teller signs.
      refetchInterval: 30_000,
    }),
  list: (api: BackOfficeApi, status: CashUpStatus) =>
    queryOptions({
      queryKey: ['cash-ups', api.userId, 'list', status] as const,
      queryFn: ({ signal }) => api.get(`/cash-ups${qs({ status })}`, signal, CashUpList),
      refetchInterval: 30_000,
    }),
  one: (api: BackOfficeApi, id: string) =>
    queryOptions({
      queryKey: ['cash-ups', api.userId, 'one', id] as const,
      queryFn: ({ signal }) => api.get(`/cash-ups/${encodeURIComponent(id)}`, signal, CashUp),
    }),
};

export const saveFloat = (api: BackOfficeApi, body: { currency: string; amount_minor?: number; denominations?: DenominationCounts }) =>
  api.post('/cash-desk/cash-up/float', body, CashUpResult);
export const saveCount = (api: BackOfficeApi, body: { currency: string; denominations: DenominationCounts }) => api.post('/cash-desk/cash-up/count', body, CashUpResult);
export const tellerSign = (api: BackOfficeApi, currency: string) => api.post('/cash-desk/cash-up/sign', { currency }, CashUpResult);
export const supervisorSignOff = (api: BackOfficeApi, id: string, note: string) =>
  api.post(`/cash-ups/${encodeURIComponent(id)}/sign-off`, note ? { note } : {}, CashUpResult);
