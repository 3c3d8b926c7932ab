import { sql } from 'kysely';
import type { Db } from '../../db/database';
import type { Clock } from '../../lib/clock';
import { AppError, invalid, notFound } from '../../lib/errors';
import { sha256Hex } from '../../lib/hash';
import type { IdGenerator } from '../../lib/ids';
import { RAILS } from '../../../shared/schemas/common';
import type { MomoCountryCode } from '../../../shared/countries';
// The URL rules and the secret's form live with the dispatcher that enforces and signs with them.
import { checkWebhookUrl, newWebhookSecret, type OwnAddress } from '../webhooks';

const API_KEY_PREFIX_LENGTH = 12; // "ak_test_" + 4 characters, shown in lists
const API_KEY_SECRET_LENGTH = 32; // base62: ~190 bits

export interface CreatedIntegration {
  merchant_id: string;
  integration_id: string;
  api_key: string;
  webhook_secret: string | null;
}

export function newApiKey(ids: IdGenerator, mode: 'test' | 'live') {
  const key = ids.token(`ak_${mode}`, API_KEY_SECRET_LENGTH);
  return { key, prefix: key.slice(0, API_KEY_PREFIX_LENGTH), hash: sha256Hex(key) };
}

/**
 * Creates (or reuses, by name) a merchant, a test integration with every rail enabled,
 * one API key and, when a URL is given, one webhook endpoint — all in one transaction.
 * The key and the secret are returned this once; only the key's hash is stored.
 */
export async function createIntegration(
  db: Db,
  clock: Clock,
  ids: IdGenerator,
  input: {
    merchantName: string;
    webhookUrl?: string | undefined;
    live?: boolean;
    /** Paydesk's own addresses, refused as webhook URLs (url-policy.ts `ownAddresses`). */
    ownAddresses?: readonly OwnAddress[];
  },
): Promise<CreatedIntegration> {
  if (input.live) throw new AppError('INVALID_ARGUMENT', 'live: live key creation is not enabled on this deployment');
  const name = input.merchantName.trim();
  if (!name) throw invalid('merchant', 'must not be empty');
  if (name.length > 200) throw invalid('merchant', 'must be at most 200 characters');
  const mode = 'test' as const;
  const webhookUrl = input.webhookUrl === undefined ? undefined : checkWebhookUrl(input.webhookUrl, mode, input.ownAddresses);
  const now = clock.now().toISOString();
  return db.transaction().execute(async (trx) => {
    let merchant = await trx.selectFrom('merchants').select('id').where('name', '=', name).executeTakeFirst();
    if (!merchant) {
      merchant = { id: ids.uuid() };
      await trx.insertInto('merchants').values({ id: merchant.id, name, created_at: now }).execute();
    }
    const integrationId = ids.uuid();
    await trx
      .insertInto('integrations')
      .values({
        id: integrationId,
        merchant_id: merchant.id,
        name: `${name} (test)`,
        mode,
        allowed_rails: JSON.stringify(RAILS),
        card_collection_mode: 'test_simulation',
        created_at: now,
        disabled_at: null,
      })
      .execute();
    const key = newApiKey(ids, mode);
    await trx
      .insertInto('api_keys')
      .values({ id: ids.uuid(), integration_id: integrationId, prefix: key.prefix, key_hash: key.hash, mode, created_at: now, last_used_at: null, revoked_at: null })
      .execute();
    let secret: string | null = null;
    if (webhookUrl !== undefined) {
      secret = newWebhookSecret(ids);
      await trx
        .insertInto('webhook_endpoints')
        .values({
          id: ids.uuid(),
          integration_id: integrationId,
          url: webhookUrl,
          secret,
          previous_secret: null,
          previous_secret_expires_at: null,
          status: 'active',
          disabled_reason: null,
          created_at: now,
          updated_at: now,
        })
        .execute();
    }
    return { merchant_id: merchant.id, integration_id: integrationId, api_key: key.key, webhook_secret: secret };
  });
}

export async function listIntegrations(db: Db) {
  const rows = await db
    .selectFrom('integrations as i')
    .innerJoin('merchants as m', 'm.id', 'i.merchant_id')
    .select(['i.id', 'i.name', 'i.mode', 'i.allowed_rails', 'i.momo_countries', 'i.created_at', 'i.disabled_at', 'm.id as merchant_id', 'm.name as merchant_name'])
    .orderBy('i.created_at')
    // Rows of one millisecond in the order they were made (migration 0012 gives PostgreSQL a rowid).
    .orderBy(sql`i.rowid`)
    .execute();
  const keys = await db
    .selectFrom('api_keys as k')
    .leftJoin('api_key_usage as u', 'u.api_key_id', 'k.id')
    .select(['k.id', 'k.integration_id', 'k.name', 'k.prefix', 'k.created_at', 'k.revoked_at', 'u.last_used_at'])
    .orderBy('k.created_at')
    .orderBy(sql`k.rowid`)
    .execute();
  const endpoints = await db.selectFrom('webhook_endpoints').select(['id', 'integration_id', 'url', 'status']).orderBy('created_at').orderBy(sql`rowid`).execute();
  return rows.map((r) => ({
    integration_id: r.id,
    merchant_id: r.merchant_id,
    merchant_name: r.merchant_name,
    mode: r.mode,
    allowed_rails: JSON.parse(r.allowed_rails) as string[],
    /** The Mobile Money countries served; null: every country of the session's currency. */
    momo_countries: r.momo_countries == null ? null : (JSON.parse(r.momo_countries) as MomoCountryCode[]),
    created_at: r.created_at,
    disabled_at: r.disabled_at,
    api_keys: keys
      .filter((k) => k.integration_id === r.id)
      .map((k) => ({ id: k.id, name: k.name, prefix: k.prefix, created_at: k.created_at, last_used_at: k.last_used_at, revoked_at: k.revoked_at })),
    webhook_endpoints: endpoints.filter((e) => e.integration_id === r.id).map((e) => ({ id: e.id, url: e.url, status: e.status })),
  }));
}

/** Revokes a key given as the whole key, its id or its visible prefix; revoking twice is harmless. */
export async function revokeApiKey(db: Db, clock: Clock, idOrPrefix: string) {
  const matches = await db
    .selectFrom('api_keys')
    .select(['id', 'prefix', 'revoked_at'])
    .where((eb) => eb.or([eb('id', '=', idOrPrefix), eb('prefix', '=', idOrPrefix), eb('key_hash', '=', sha256Hex(idOrPrefix))]))
    .execute();
  if (matches.length === 0) throw notFound(`API key ${idOrPrefix}`);
  if (matches.length > 1) throw invalid('key', `prefix ${idOrPrefix} matches ${matches.length} keys; give the key id`);
  const key = matches[0]!;
  const revokedAt = key.revoked_at ?? clock.now().toISOString();
  if (!key.revoked_at) await db.updateTable('api_keys').set({ revoked_at: revokedAt }).where('id', '=', key.id).execute();
  return { id: key.id, prefix: key.prefix, revoked_at: revokedAt };
}
