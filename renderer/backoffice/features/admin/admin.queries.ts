import { queryOptions } from '@tanstack/react-query';
import type { BackOfficeApi } from '../common/api';
import type { WebhookEndpoint } from '../../../../shared/schemas/webhooks';

export interface FeeRuleView {
  rail: string;
  percent_bps: number;
  fixed_minor: number;
  cap_minor: number | null;
  bearer: 'payer' | 'merchant';
  default: boolean;
}
export interface IntegrationView {
  integration_id: string;
  merchant_id: string;
  merchant_name: string;
  mode: 'test' | 'live';
  allowed_rails: string[];
  created_at: string;
  disabled_at: string | null;
  api_keys: Array<{ id: string; name: string | null; prefix: string; created_at: string; last_used_at: string | null; revoked_at: string | null }>;
  webhook_endpoints: Array<Pick<WebhookEndpoint, 'id' | 'url' | 'status'>>;
  fee_rules: FeeRuleView[];
}
export interface StaffRow {
  id: string;
  username: string;
  role: string;
  branch_id: string | null;
  branch_name: string | null;
  bank_name: string | null;
  merchant_id: string | null;
  merchant_name: string | null;
  created_at: string;
  disabled_at: string | null;
  /** Set after an admin created or reset the account, until the user chooses their own password. */
  must_change_password: boolean;
}
export interface BankView {
  id: string;
  name: string;
  code: string;
  active: boolean;
  branches: Array<{ id: string; name: string; code: string; active: boolean }>;
}

/** Administration reads (admins only). */
export const adminQueries = {
  integrations: (api: BackOfficeApi) =>
    queryOptions({
      queryKey: ['admin', api.userId, 'integrations'] as const,
      queryFn: ({ signal }) => api.get<{ integrations: IntegrationView[] }>('/admin/integrations', signal),
      // "Last used" moves with merchant traffic: read it afresh whenever the tab opens.
      staleTime: 0,
    }),
  staff: (api: BackOfficeApi) => queryOptions({ queryKey: ['admin', api.userId, 'staff'] as const, queryFn: ({ signal }) => api.get<{ staff: StaffRow[] }>('/admin/staff', signal) }),
  banks: (api: BackOfficeApi) => queryOptions({ queryKey: ['admin', api.userId, 'banks'] as const, queryFn: ({ signal }) => api.get<{ banks: BankView[] }>('/admin/banks', signal) }),
};
