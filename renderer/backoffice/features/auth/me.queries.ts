import { queryOptions } from '@tanstack/react-query';
import { StaffMe } from '../../../../shared/schemas/backoffice';
import type { BackOfficeApi } from '../common/api';

/** The signed-in staff member with their branch or merchant (GET /me). */
export const meQueries = {
  me: (api: BackOfficeApi) =>
    queryOptions({
      queryKey: ['me', api.userId] as const,
      queryFn: ({ signal }) => api.get('/me', signal, StaffMe),
      staleTime: 60_000,
    }),
};
