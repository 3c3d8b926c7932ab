import { queryOptions } from '@tanstack/react-query';
import type { BackOfficeApi } from '../common/api';
import { BanksView, IntegrationsView, StaffView, type StaffUserView } from '../../../../shared/schemas/admin';

/** The administration API's shapes are the server's own (shared/schemas/admin.ts), not retyped here. */
export type { IntegrationView } from '../../../../shared/schemas/admin';
export type StaffRow = StaffUserView;

/** Administration reads (admins only). */
export const adminQueries = {
  integrations: (api: BackOfficeApi) =>
    queryOptions({
      queryKey: ['admin', api.userId, 'integrations'] as const,
      queryFn: ({ signal }) => api.get('/admin/integrations', signal, IntegrationsView),
      // "Last used" moves with merchant traffic: read it afresh whenever the tab opens.
      staleTime: 0,
    }),
  staff: (api: BackOfficeApi) => queryOptions({ queryKey: ['admin', api.userId, 'staff'] as const, queryFn: ({ signal }) => api.get('/admin/staff', signal, StaffView) }),
  banks: (api: BackOfficeApi) => queryOptions({ queryKey: ['admin', api.userId, 'banks'] as const, queryFn: ({ signal }) => api.get('/admin/banks', signal, BanksView) }),
};
