import { z } from 'zod';
import { IsoDateTime, Rail } from './common';
import { MOMO_COUNTRY_CODES } from '../countries';

/**
 * Response shapes of the administration calls (server/modules/admin/admin.routes.ts): exactly
 * what the service returns (the serializer drops any field not named here, so every field is).
 * Secrets (`api_key`, `secret`, `webhook_secret`) appear only in the answer that creates them.
 */

const FeeRuleView = z.object({
  rail: Rail,
  /** ISO 4217 code: fixed_minor and cap_minor are minor units of it; only sessions in it are quoted with the rule. */
  currency: z.string(),
  percent_bps: z.number().int(),
  fixed_minor: z.number().int(),
  cap_minor: z.number().int().nullable(),
  bearer: z.enum(['payer', 'merchant']),
  /** True while the integration has no rule of its own for this rail. */
  default: z.boolean(),
});

export const IntegrationView = z.object({
  integration_id: z.string(),
  merchant_id: z.string(),
  merchant_name: z.string(),
  mode: z.enum(['test', 'live']),
  allowed_rails: z.array(z.string()),
  /** The Mobile Money countries the integration serves (shared/countries.ts codes); null: every country of the session's currency. */
  momo_countries: z.array(z.enum(MOMO_COUNTRY_CODES)).nullable(),
  created_at: IsoDateTime,
  disabled_at: IsoDateTime.nullable(),
  api_keys: z.array(
    z.object({ id: z.string(), name: z.string().nullable(), prefix: z.string(), created_at: IsoDateTime, last_used_at: IsoDateTime.nullable(), revoked_at: IsoDateTime.nullable() }),
  ),
  webhook_endpoints: z.array(z.object({ id: z.string(), url: z.string(), status: z.enum(['active', 'disabled']) })),
  card_collection_mode: z.enum(['direct_card', 'test_simulation']),
  fee_rules: z.array(FeeRuleView),
});
export const IntegrationsView = z.object({ integrations: z.array(IntegrationView) });

export const CreatedIntegration = z.object({ merchant_id: z.string(), integration_id: z.string(), api_key: z.string(), webhook_secret: z.string().nullable() });
export const CreatedApiKey = z.object({ id: z.string(), name: z.string().nullable(), prefix: z.string(), api_key: z.string(), created_at: IsoDateTime });
export const RevokedApiKey = z.object({ id: z.string(), prefix: z.string(), revoked_at: IsoDateTime });
export const CreatedEndpoint = z.object({ id: z.string(), url: z.string(), secret: z.string() });

const BranchView = z.object({ id: z.string(), name: z.string(), code: z.string(), active: z.boolean() });
export const BanksView = z.object({ banks: z.array(z.object({ id: z.string(), name: z.string(), code: z.string(), active: z.boolean(), branches: z.array(BranchView) })) });

export const StaffUserView = z.object({
  id: z.string(),
  username: z.string(),
  /** Printed on receipts; null for accounts made before full names were asked for. */
  full_name: z.string().nullable(),
  role: z.string(),
  branch_id: z.string().nullable(),
  branch_name: z.string().nullable(),
  bank_name: z.string().nullable(),
  merchant_id: z.string().nullable(),
  merchant_name: z.string().nullable(),
  created_at: IsoDateTime,
  disabled_at: IsoDateTime.nullable(),
  must_change_password: z.boolean(),
});
export const StaffView = z.object({ staff: z.array(StaffUserView) });
export const CreatedStaff = z.object({ id: z.string(), username: z.string(), role: z.string() });

type FeeRuleView = z.infer<typeof FeeRuleView>;
export type IntegrationView = z.infer<typeof IntegrationView>;
export type IntegrationsView = z.infer<typeof IntegrationsView>;
export type BanksView = z.infer<typeof BanksView>;
export type StaffView = z.infer<typeof StaffView>;
export type StaffUserView = z.infer<typeof StaffUserView>;
