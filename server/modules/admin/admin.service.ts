import type { Db } from '../../db/database';
import { defaultFeeRule, FEE_DEFAULT_CURRENCIES } from '../../domain/fees';
import { AppError, invalid, notFound } from '../../lib/errors';
import type { TransitionDeps } from '../../domain/session-transitions';
import { createIntegration, listIntegrations, newApiKey, revokeApiKey } from '../integrations';
import { createStaff } from '../auth';
import { RAILS, type Rail } from '../../../shared/schemas/common';
import { MOMO_COUNTRY_CODES, type MomoCountryCode } from '../../../shared/countries';
import { recordAudit, type Actor } from '../audit';
import type { Config } from '../../config';
import { checkWebhookUrl, newWebhookSecret, ownAddresses, type OwnAddress } from '../webhooks';

/**
 * Administration: merchants and integrations, API keys, webhook endpoints, fee rules and
 * rails, banks and branches, staff. Every change is audited in the same transaction; secrets
 * (API keys, webhook signing secrets) are returned once and never stored or logged in clear
 * (the audit entry names the key by its prefix).
 */
export type AdminDeps = TransitionDeps & { db: Db; config?: Config; baseUrl?: () => string };

/** Paydesk's own addresses, which a webhook URL may not name (webhooks/url-policy.ts). */
const ownAddressesOf = (deps: AdminDeps): OwnAddress[] => (deps.config ? ownAddresses(deps.config, { urls: deps.baseUrl ? [deps.baseUrl()] : [] }) : []);

export async function integrationsView(db: Db) {
  const list = await listIntegrations(db);
  const rules = await db.selectFrom('fee_rules').selectAll().execute();
  const modes = await db.selectFrom('integrations').select(['id', 'card_collection_mode']).execute();
  return {
    integrations: list.map((i) => ({
      ...i,
      card_collection_mode: modes.find((m) => m.id === i.integration_id)?.card_collection_mode ?? 'test_simulation',
      // Every rail in each currency with shipped defaults, then in any other currency the
      // integration has a rule of its own for.
      fee_rules: [...new Set([...FEE_DEFAULT_CURRENCIES, ...rules.filter((r) => r.integration_id === i.integration_id).map((r) => r.currency).sort()])].flatMap((currency) =>
        RAILS.map((rail) => {
          const own = rules.find((r) => r.integration_id === i.integration_id && r.currency === currency && r.rail === rail);
          const rule = own ?? defaultFeeRule(currency, rail);
          return { rail, currency, percent_bps: rule.percent_bps, fixed_minor: rule.fixed_minor, cap_minor: rule.cap_minor, bearer: rule.bearer, default: !own };
        }),
      ),
    })),
  };
}

async function integration(db: Db, id: string) {
  const row = await db.selectFrom('integrations').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) throw notFound(`integration ${id}`);
  return row;
}

export async function adminCreateIntegration(deps: AdminDeps, actor: Actor, input: { merchant_name: string; webhook_url?: string | undefined }) {
  const created = await createIntegration(deps.db, deps.clock, deps.ids, { merchantName: input.merchant_name, webhookUrl: input.webhook_url, ownAddresses: ownAddressesOf(deps) });
  await recordAudit(deps.db, deps, actor, {
    action: 'integration.create',
    targetType: 'integration',
    targetId: created.integration_id,
    merchantId: created.merchant_id,
    after: { merchant_name: input.merchant_name.trim(), api_key_prefix: created.api_key.slice(0, 12), webhook_url: input.webhook_url ?? null },
  });
  return created;
}

export async function adminCreateApiKey(deps: AdminDeps, actor: Actor, integrationId: string, name: string | null = null) {
  const i = await integration(deps.db, integrationId);
  const key = newApiKey(deps.ids, i.mode);
  const id = deps.ids.uuid();
  const now = deps.clock.now().toISOString();
  await deps.db.transaction().execute(async (trx) => {
    await trx.insertInto('api_keys').values({ id, integration_id: i.id, prefix: key.prefix, key_hash: key.hash, mode: i.mode, name, created_at: now, last_used_at: null, revoked_at: null }).execute();
    await recordAudit(trx, deps, actor, { action: 'api_key.create', targetType: 'api_key', targetId: id, merchantId: i.merchant_id, after: { name, prefix: key.prefix, integration_id: i.id } });
  });
  return { id, name, prefix: key.prefix, api_key: key.key, created_at: now };
}

export async function adminRevokeApiKey(deps: AdminDeps, actor: Actor, keyId: string) {
  const before = await deps.db.selectFrom('api_keys').select(['id', 'prefix', 'revoked_at']).where('id', '=', keyId).executeTakeFirst();
  if (!before) throw notFound(`API key ${keyId}`);
  const revoked = await revokeApiKey(deps.db, deps.clock, keyId);
  await recordAudit(deps.db, deps, actor, { action: 'api_key.revoke', targetType: 'api_key', targetId: keyId, before: { revoked_at: before.revoked_at }, after: { prefix: before.prefix, revoked_at: revoked.revoked_at } });
  return revoked;
}

export async function adminCreateEndpoint(deps: AdminDeps, actor: Actor, integrationId: string, url: string) {
  const i = await integration(deps.db, integrationId);
  const checked = checkWebhookUrl(url, i.mode, ownAddressesOf(deps));
  const id = deps.ids.uuid();
  const secret = newWebhookSecret(deps.ids);
  const now = deps.clock.now().toISOString();
  await deps.db.transaction().execute(async (trx) => {
    await trx
      .insertInto('webhook_endpoints')
      .values({ id, integration_id: i.id, url: checked, secret, previous_secret: null, previous_secret_expires_at: null, status: 'active', disabled_reason: null, created_at: now, updated_at: now })
      .execute();
    await recordAudit(trx, deps, actor, { action: 'webhook_endpoint.create', targetType: 'webhook_endpoint', targetId: id, merchantId: i.merchant_id, after: { url: checked } });
  });
  return { id, url: checked, secret };
}

export async function adminSetRails(deps: AdminDeps, actor: Actor, integrationId: string, rails: Rail[]) {
  const i = await integration(deps.db, integrationId);
  const unique = RAILS.filter((r) => rails.includes(r));
  if (unique.length === 0) throw invalid('allowed_rails', 'must name at least one rail');
  await deps.db.transaction().execute(async (trx) => {
    await trx.updateTable('integrations').set({ allowed_rails: JSON.stringify(unique) }).where('id', '=', i.id).execute();
    await recordAudit(trx, deps, actor, {
      action: 'integration.set_rails',
      targetType: 'integration',
      targetId: i.id,
      merchantId: i.merchant_id,
      before: { allowed_rails: JSON.parse(i.allowed_rails) as unknown },
      after: { allowed_rails: unique },
    });
  });
  return integrationsView(deps.db);
}

/** The Mobile Money countries the integration serves: a list in shared/countries.ts's order, or null for every country of the session's currency. */
export async function adminSetMomoCountries(deps: AdminDeps, actor: Actor, integrationId: string, countries: readonly MomoCountryCode[] | null) {
  const i = await integration(deps.db, integrationId);
  const served = countries === null ? null : MOMO_COUNTRY_CODES.filter((c) => countries.includes(c));
  await deps.db.transaction().execute(async (trx) => {
    await trx
      .updateTable('integrations')
      .set({ momo_countries: served === null ? null : JSON.stringify(served) })
      .where('id', '=', i.id)
      .execute();
    await recordAudit(trx, deps, actor, {
      action: 'integration.set_momo_countries',
      targetType: 'integration',
      targetId: i.id,
      merchantId: i.merchant_id,
      before: { momo_countries: i.momo_countries == null ? null : (JSON.parse(i.momo_countries) as unknown) },
      after: { momo_countries: served },
    });
  });
  return integrationsView(deps.db);
}

export async function adminSetFeeRule(
  deps: AdminDeps,
  actor: Actor,
  integrationId: string,
  input: { rail: Rail; currency: string; percent_bps: number; fixed_minor: number; cap_minor: number | null; bearer: 'payer' | 'merchant' },
) {
  const i = await integration(deps.db, integrationId);
  const now = deps.clock.now().toISOString();
  const { currency, ...rule } = input;
  await deps.db.transaction().execute(async (trx) => {
    const before = await trx.selectFrom('fee_rules').selectAll().where('integration_id', '=', i.id).where('currency', '=', currency).where('rail', '=', rule.rail).executeTakeFirst();
    if (before) {
      await trx
        .updateTable('fee_rules')
        .set({ percent_bps: rule.percent_bps, fixed_minor: rule.fixed_minor, cap_minor: rule.cap_minor, bearer: rule.bearer, updated_at: now })
        .where('id', '=', before.id)
        .execute();
    } else {
      await trx.insertInto('fee_rules').values({ id: deps.ids.uuid(), integration_id: i.id, currency, ...rule, created_at: now, updated_at: now }).execute();
    }
    const prev = before ? { percent_bps: before.percent_bps, fixed_minor: before.fixed_minor, cap_minor: before.cap_minor, bearer: before.bearer } : defaultFeeRule(currency, rule.rail);
    await recordAudit(trx, deps, actor, {
      action: 'fee_rule.set',
      targetType: 'integration',
      targetId: i.id,
      merchantId: i.merchant_id,
      before: { rail: rule.rail, currency, ...prev },
      after: { ...rule, currency },
    });
  });
  return integrationsView(deps.db);
}

// ---------------------------------------------------------------- banks and branches

export async function banksView(db: Db) {
  const banks = await db.selectFrom('banks').selectAll().orderBy('name').execute();
  const branches = await db.selectFrom('branches').selectAll().orderBy('name').execute();
  return {
    banks: banks.map((b) => ({
      id: b.id,
      name: b.name,
      code: b.code,
      active: b.active === 1,
      branches: branches.filter((br) => br.bank_id === b.id).map((br) => ({ id: br.id, name: br.name, code: br.code, active: br.active === 1 })),
    })),
  };
}

export async function adminCreateBank(deps: AdminDeps, actor: Actor, input: { name: string; code: string }) {
  const code = input.code.trim().toUpperCase();
  if (await deps.db.selectFrom('banks').select('id').where('code', '=', code).executeTakeFirst()) throw invalid('code', `a bank with code ${code} exists`);
  const id = deps.ids.uuid();
  await deps.db.transaction().execute(async (trx) => {
    await trx.insertInto('banks').values({ id, name: input.name.trim(), code, active: 1, created_at: deps.clock.now().toISOString() }).execute();
    await recordAudit(trx, deps, actor, { action: 'bank.create', targetType: 'bank', targetId: id, after: { name: input.name.trim(), code } });
  });
  return banksView(deps.db);
}

export async function adminCreateBranch(deps: AdminDeps, actor: Actor, bankId: string, input: { name: string; code: string }) {
  const bank = await deps.db.selectFrom('banks').select('id').where('id', '=', bankId).executeTakeFirst();
  if (!bank) throw notFound(`bank ${bankId}`);
  const code = input.code.trim().toUpperCase();
  if (await deps.db.selectFrom('branches').select('id').where('bank_id', '=', bankId).where('code', '=', code).executeTakeFirst()) {
    throw invalid('code', `the bank already has a branch with code ${code}`);
  }
  const id = deps.ids.uuid();
  await deps.db.transaction().execute(async (trx) => {
    await trx.insertInto('branches').values({ id, bank_id: bankId, name: input.name.trim(), code, active: 1, created_at: deps.clock.now().toISOString() }).execute();
    await recordAudit(trx, deps, actor, { action: 'branch.create', targetType: 'branch', targetId: id, after: { bank_id: bankId, name: input.name.trim(), code } });
  });
  return banksView(deps.db);
}

export async function adminSetBranchActive(deps: AdminDeps, actor: Actor, branchId: string, active: boolean) {
  const br = await deps.db.selectFrom('branches').selectAll().where('id', '=', branchId).executeTakeFirst();
  if (!br) throw notFound(`branch ${branchId}`);
  await deps.db.transaction().execute(async (trx) => {
    await trx.updateTable('branches').set({ active: active ? 1 : 0 }).where('id', '=', branchId).execute();
    await recordAudit(trx, deps, actor, { action: active ? 'branch.activate' : 'branch.deactivate', targetType: 'branch', targetId: branchId, before: { active: br.active === 1 }, after: { active } });
  });
  return banksView(deps.db);
}

export async function adminSetBankActive(deps: AdminDeps, actor: Actor, bankId: string, active: boolean) {
  const bank = await deps.db.selectFrom('banks').selectAll().where('id', '=', bankId).executeTakeFirst();
  if (!bank) throw notFound(`bank ${bankId}`);
  await deps.db.transaction().execute(async (trx) => {
    // A deactivated bank leaves the checkout options with all its branches (their own flags are kept).
    await trx.updateTable('banks').set({ active: active ? 1 : 0 }).where('id', '=', bankId).execute();
    await recordAudit(trx, deps, actor, { action: active ? 'bank.activate' : 'bank.deactivate', targetType: 'bank', targetId: bankId, before: { active: bank.active === 1 }, after: { active } });
  });
  return banksView(deps.db);
}

export async function adminRenameBank(deps: AdminDeps, actor: Actor, bankId: string, name: string) {
  const bank = await deps.db.selectFrom('banks').selectAll().where('id', '=', bankId).executeTakeFirst();
  if (!bank) throw notFound(`bank ${bankId}`);
  const next = name.trim();
  await deps.db.transaction().execute(async (trx) => {
    await trx.updateTable('banks').set({ name: next }).where('id', '=', bankId).execute();
    await recordAudit(trx, deps, actor, { action: 'bank.rename', targetType: 'bank', targetId: bankId, before: { name: bank.name }, after: { name: next } });
  });
  return banksView(deps.db);
}

export async function adminRenameBranch(deps: AdminDeps, actor: Actor, branchId: string, name: string) {
  const br = await deps.db.selectFrom('branches').selectAll().where('id', '=', branchId).executeTakeFirst();
  if (!br) throw notFound(`branch ${branchId}`);
  const next = name.trim();
  await deps.db.transaction().execute(async (trx) => {
    await trx.updateTable('branches').set({ name: next }).where('id', '=', branchId).execute();
    await recordAudit(trx, deps, actor, { action: 'branch.rename', targetType: 'branch', targetId: branchId, before: { name: br.name }, after: { name: next } });
  });
  return banksView(deps.db);
}

// ---------------------------------------------------------------- staff

export async function staffView(db: Db) {
  const rows = await db
    .selectFrom('staff_users as u')
    .leftJoin('branches as br', 'br.id', 'u.branch_id')
    .leftJoin('banks as bk', 'bk.id', 'br.bank_id')
    .leftJoin('merchants as m', 'm.id', 'u.merchant_id')
    .select(['u.id', 'u.username', 'u.full_name', 'u.role', 'u.branch_id', 'br.name as branch_name', 'bk.name as bank_name', 'u.merchant_id', 'm.name as merchant_name', 'u.created_at', 'u.disabled_at', 'u.must_change_password'])
    .orderBy('u.username')
    .execute();
  return { staff: rows.map((r) => ({ ...r, full_name: r.full_name ?? null, must_change_password: r.must_change_password === 1 })) };
}

export async function adminCreateStaff(
  deps: AdminDeps,
  actor: Actor,
  input: { username: string; full_name: string; password: string; role: string; branch_id?: string | undefined; merchant_id?: string | undefined },
) {
  const user = await createStaff(deps.db, deps.clock, deps.ids, {
    username: input.username,
    fullName: input.full_name,
    password: input.password,
    role: input.role,
    branchId: input.branch_id,
    merchantId: input.merchant_id,
    // The admin chose this password: the user replaces it at first sign-in.
    mustChangePassword: true,
  });
  await recordAudit(deps.db, deps, actor, {
    action: 'staff.create',
    targetType: 'staff_user',
    targetId: user.id,
    merchantId: input.merchant_id ?? null,
    after: { username: user.username, full_name: input.full_name, role: user.role, branch_id: input.branch_id ?? null, merchant_id: input.merchant_id ?? null },
  });
  return user;
}

/** An admin corrects a staff user's full name (audited). */
export async function adminSetFullName(deps: AdminDeps, actor: Actor, staffId: string, fullName: string) {
  await deps.db.transaction().execute(async (trx) => {
    const u = await trx.selectFrom('staff_users').select(['id', 'full_name']).where('id', '=', staffId).executeTakeFirst();
    if (!u) throw notFound(`staff user ${staffId}`);
    await trx.updateTable('staff_users').set({ full_name: fullName }).where('id', '=', staffId).execute();
    await recordAudit(trx, deps, actor, { action: 'staff.rename', targetType: 'staff_user', targetId: staffId, before: { full_name: u.full_name ?? null }, after: { full_name: fullName } });
  });
}

/** Disabling signs the user out everywhere (their tokens are revoked) and refuses new sign-ins. */
export async function adminSetStaffDisabled(deps: AdminDeps, actor: Actor, staffId: string, disabled: boolean) {
  if (staffId === actor.id && disabled) throw new AppError('STATE_CONFLICT', 'you cannot disable your own account');
  const u = await deps.db.selectFrom('staff_users').select(['id', 'username', 'disabled_at']).where('id', '=', staffId).executeTakeFirst();
  if (!u) throw notFound(`staff user ${staffId}`);
  const now = deps.clock.now().toISOString();
  await deps.db.transaction().execute(async (trx) => {
    await trx.updateTable('staff_users').set({ disabled_at: disabled ? now : null }).where('id', '=', staffId).execute();
    if (disabled) await trx.updateTable('staff_sessions').set({ revoked_at: now }).where('staff_id', '=', staffId).where('revoked_at', 'is', null).execute();
    await recordAudit(trx, deps, actor, {
      action: disabled ? 'staff.disable' : 'staff.enable',
      targetType: 'staff_user',
      targetId: staffId,
      before: { disabled: u.disabled_at !== null },
      after: { username: u.username, disabled },
    });
  });
  return staffView(deps.db);
}
