import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../deps';
import { confirmBankTransfer } from '../payments';
import { AmountMinor, Currency, DEFAULT_CURRENCY, MAX_AMOUNT_MINOR, Rail } from '../../../shared/schemas/common';
import { ProviderPaymentStatusResponse } from '../../../shared/schemas/checkout';
import { STAFF_ROLES } from '../../../shared/schemas/backoffice';
import { MOMO_COUNTRY_CODES } from '../../../shared/countries';
import { BanksView, CreatedApiKey, CreatedEndpoint, CreatedIntegration, CreatedStaff, IntegrationsView, RevokedApiKey, StaffView } from '../../../shared/schemas/admin';
import {
  adminCreateApiKey,
  adminCreateBank,
  adminSetFullName,
  adminCreateBranch,
  adminCreateEndpoint,
  adminCreateIntegration,
  adminCreateStaff,
  adminRenameBank,
  adminRenameBranch,
  adminRevokeApiKey,
  adminSetBankActive,
  adminSetBranchActive,
  adminSetFeeRule,
  adminSetMomoCountries,
  adminSetRails,
  adminSetStaffDisabled,
  banksView,
  integrationsView,
  staffView,
} from './admin.service';
import { actorOf } from '../audit';
import { adminChangeRole, adminResetPassword, allow, requireStaff, staffErrors } from '../auth';

const errors = staffErrors;
const tags = ['Back office: administration'];
const str = (max: number) => z.string({ error: 'is required' }).trim().min(1, { error: 'must not be empty' }).max(max, { error: `must be at most ${max} characters` });
const Id = (name: string) => z.object({ [name]: z.string().min(1).max(80) });

/** Administration (admins only): every route here answers 403 FORBIDDEN to other roles. */
export async function adminRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  await app.register(async (scope) => {
    scope.addHook('preValidation', allow('admin'));
    const r = scope.withTypeProvider<ZodTypeProvider>();
    const actor = (req: FastifyRequest) => actorOf(requireStaff(req), req.ip);

    r.get('/admin/integrations', { schema: { tags, summary: 'Merchants, integrations, keys (by prefix), endpoints, rails and fee rules', response: { 200: IntegrationsView, ...errors } } }, async () => integrationsView(deps.db));
    r.post(
      '/admin/integrations',
      { schema: { tags, summary: 'Create a merchant (or reuse it by name) with a test integration; the key and secret are shown once', body: z.object({ merchant_name: str(200), webhook_url: z.string().max(500).optional() }), response: { 201: CreatedIntegration, ...errors } } },
      async (req, reply) => reply.code(201).send(await adminCreateIntegration(deps, actor(req), req.body)),
    );
    r.post(
      '/admin/integrations/:integration_id/api-keys',
      {
        schema: {
          tags,
          summary: 'A new API key (shown once), with an optional name saying where it is used',
          params: Id('integration_id'),
          body: z.object({ name: z.string({ error: 'must be a string' }).trim().max(80, { error: 'must be at most 80 characters' }).optional() }).nullish(),
          response: { 201: CreatedApiKey, ...errors },
        },
      },
      async (req, reply) => reply.code(201).send(await adminCreateApiKey(deps, actor(req), String(req.params.integration_id), req.body?.name || null)),
    );
    r.post('/admin/api-keys/:key_id/revoke', { schema: { tags, summary: 'Revoke an API key', params: Id('key_id'), response: { 200: RevokedApiKey, ...errors } } }, async (req) =>
      adminRevokeApiKey(deps, actor(req), String(req.params.key_id)),
    );
    r.post(
      '/admin/integrations/:integration_id/webhook-endpoints',
      { schema: { tags, summary: 'Add a webhook endpoint (the signing secret is shown once)', params: Id('integration_id'), body: z.object({ url: str(500) }), response: { 201: CreatedEndpoint, ...errors } } },
      async (req, reply) => reply.code(201).send(await adminCreateEndpoint(deps, actor(req), String(req.params.integration_id), req.body.url)),
    );
    r.post(
      '/admin/integrations/:integration_id/rails',
      { schema: { tags, summary: 'Set the rails the integration accepts', params: Id('integration_id'), body: z.object({ allowed_rails: z.array(Rail).min(1, { error: 'must name at least one rail' }) }), response: { 200: IntegrationsView, ...errors } } },
      async (req) => adminSetRails(deps, actor(req), String(req.params.integration_id), req.body.allowed_rails),
    );
    r.post(
      '/admin/integrations/:integration_id/momo-countries',
      {
        schema: {
          tags,
          summary: 'Set the Mobile Money countries the integration serves (null: every country of the session\'s currency)',
          params: Id('integration_id'),
          body: z.object({
            momo_countries: z
              .array(z.enum(MOMO_COUNTRY_CODES, { error: `must be one of ${MOMO_COUNTRY_CODES.join(', ')}` }), { error: 'must be a list of country codes, or null for every country' })
              .min(1, { error: 'must name at least one country, or be null for every country' })
              .max(MOMO_COUNTRY_CODES.length)
              .nullable(),
          }),
          response: { 200: IntegrationsView, ...errors },
        },
      },
      async (req) => adminSetMomoCountries(deps, actor(req), String(req.params.integration_id), req.body.momo_countries),
    );
    r.post(
      '/admin/integrations/:integration_id/fee-rules',
      {
        schema: {
          tags,
          summary: 'Set the fee rule of one rail in one currency (its fixed part and cap in that currency\'s minor units)',
          params: Id('integration_id'),
          body: z.object({
            rail: Rail,
            /** Absent: GHS, the default market. */
            currency: Currency.optional().transform((c) => c ?? DEFAULT_CURRENCY),
            percent_bps: z.number().int().min(0).max(10_000),
            fixed_minor: z.number().int().min(0).max(MAX_AMOUNT_MINOR),
            cap_minor: z.number().int().min(0).max(MAX_AMOUNT_MINOR).nullable(),
            bearer: z.enum(['payer', 'merchant']),
          }),
          response: { 200: IntegrationsView, ...errors },
        },
      },
      async (req) => adminSetFeeRule(deps, actor(req), String(req.params.integration_id), req.body),
    );

    r.get('/admin/banks', { schema: { tags, summary: 'Banks and their branches', response: { 200: BanksView, ...errors } } }, async () => banksView(deps.db));
    r.post('/admin/banks', { schema: { tags, summary: 'Add a bank', body: z.object({ name: str(120), code: str(20) }), response: { 200: BanksView, ...errors } } }, async (req) => adminCreateBank(deps, actor(req), req.body));
    r.post(
      '/admin/banks/:bank_id/branches',
      { schema: { tags, summary: 'Add a branch', params: Id('bank_id'), body: z.object({ name: str(120), code: str(20) }), response: { 200: BanksView, ...errors } } },
      async (req) => adminCreateBranch(deps, actor(req), String(req.params.bank_id), req.body),
    );
    for (const action of ['activate', 'deactivate'] as const) {
      r.post(`/admin/branches/:branch_id/${action}`, { schema: { tags, summary: `${action} a branch`, params: Id('branch_id'), response: { 200: BanksView, ...errors } } }, async (req) =>
        adminSetBranchActive(deps, actor(req), String(req.params.branch_id), action === 'activate'),
      );
      r.post(`/admin/banks/:bank_id/${action}`, { schema: { tags, summary: `${action} a bank (a deactivated bank and its branches leave the checkout options)`, params: Id('bank_id'), response: { 200: BanksView, ...errors } } }, async (req) =>
        adminSetBankActive(deps, actor(req), String(req.params.bank_id), action === 'activate'),
      );
    }
    r.post('/admin/banks/:bank_id/rename', { schema: { tags, summary: 'Rename a bank', params: Id('bank_id'), body: z.object({ name: str(120) }), response: { 200: BanksView, ...errors } } }, async (req) =>
      adminRenameBank(deps, actor(req), String(req.params.bank_id), req.body.name),
    );
    r.post('/admin/branches/:branch_id/rename', { schema: { tags, summary: 'Rename a branch', params: Id('branch_id'), body: z.object({ name: str(120) }), response: { 200: BanksView, ...errors } } }, async (req) =>
      adminRenameBranch(deps, actor(req), String(req.params.branch_id), req.body.name),
    );

    r.get('/admin/staff', { schema: { tags, summary: 'Staff users', response: { 200: StaffView, ...errors } } }, async () => staffView(deps.db));
    r.post(
      '/admin/staff',
      {
        schema: {
          tags,
          summary: 'Create a staff user (like staff:create)',
          body: z.object({
            username: str(64),
            full_name: str(120),
            password: z.string().min(1).max(200),
            role: z.enum(STAFF_ROLES),
            branch_id: z.string().max(80).optional(),
            merchant_id: z.string().max(80).optional(),
          }),
          response: { 201: CreatedStaff, ...errors },
        },
      },
      async (req, reply) => reply.code(201).send(await adminCreateStaff(deps, actor(req), req.body)),
    );
    for (const action of ['disable', 'enable'] as const) {
      r.post(`/admin/staff/:staff_id/${action}`, { schema: { tags, summary: `${action} a staff user`, params: Id('staff_id'), response: { 200: StaffView, ...errors } } }, async (req) =>
        adminSetStaffDisabled(deps, actor(req), String(req.params.staff_id), action === 'disable'),
      );
    }

    r.post(
      '/admin/staff/:staff_id/full-name',
      {
        schema: { tags, summary: "Correct a staff user's full name (printed on receipts)", params: Id('staff_id'), body: z.object({ full_name: str(120) }), response: { 200: StaffView, ...errors } },
      },
      async (req) => {
        await adminSetFullName(deps, actor(req), String(req.params.staff_id), req.body.full_name);
        return staffView(deps.db);
      },
    );
    r.post(
      '/admin/staff/:staff_id/reset-password',
      {
        schema: {
          tags,
          summary: 'Set a temporary password: the user is signed out and must choose their own at the next sign-in',
          params: Id('staff_id'),
          body: z.object({ password: z.string({ error: 'is required' }).min(1, { error: 'must not be empty' }).max(200, { error: 'must be at most 200 characters' }) }),
          response: { 200: StaffView, ...errors },
        },
      },
      async (req) => {
        await adminResetPassword(deps, actor(req), String(req.params.staff_id), req.body.password);
        return staffView(deps.db);
      },
    );
    r.post(
      '/admin/staff/:staff_id/role',
      {
        schema: {
          tags,
          summary: "Change a user's role (and branch or merchant binding); the user is signed out",
          params: Id('staff_id'),
          body: z.object({ role: z.enum(STAFF_ROLES), branch_id: z.string().max(80).optional(), merchant_id: z.string().max(80).optional() }),
          response: { 200: StaffView, ...errors },
        },
      },
      async (req) => {
        await adminChangeRole(deps, actor(req), String(req.params.staff_id), req.body);
        return staffView(deps.db);
      },
    );

    r.post(
      '/admin/sandbox/bank-transfers',
      {
        schema: {
          tags,
          summary: 'Sandbox: the bank notifies that a transfer arrived (confirms a bank-transfer attempt)',
          body: z.object({ payment_reference: str(80), amount_minor: AmountMinor }),
          response: { 200: ProviderPaymentStatusResponse, ...errors },
        },
      },
      // The confirmation and its audit row commit together (one transaction).
      async (req) => confirmBankTransfer(deps, req.body.payment_reference, req.body.amount_minor, actor(req)),
    );
  });
}
