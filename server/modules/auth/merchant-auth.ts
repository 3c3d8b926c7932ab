import type { FastifyRequest } from 'fastify';
import type { Db } from '../../db/database';
import { changeStamp, commitVersion } from '../../db/read-stamp';
import { AppError } from '../../lib/errors';
import { safeEqual, sha256Hex } from '../../lib/hash';
import type { Clock } from '../../lib/clock';

export interface MerchantContext {
  merchantId: string;
  merchantName: string;
  integrationId: string;
  apiKeyId: string;
  mode: 'test' | 'live';
}

declare module 'fastify' {
  interface FastifyRequest {
    merchant?: MerchantContext;
    /**
     * The database's commit version (server/db/read-stamp.ts) as read when the key was checked
     * (after the request arrived), so a read of this request can stamp its answer without reading
     * it again (server/http/kept-answers.ts); undefined where the engine has none.
     */
    dataVersion?: number;
  }
}

const KEY_SHAPE = /^ak_(test|live)_[A-Za-z0-9]{16,128}$/;

/** Bearer token from the Authorization header, or undefined when the header is absent or malformed. */
export function bearerToken(req: FastifyRequest): string | undefined {
  const header = req.headers.authorization;
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

const unauthorized = () => new AppError('UNAUTHORIZED', 'invalid API key: send Authorization: Bearer <API key> with an active key of this environment');

/**
 * What the server remembers about API keys, one per composed Deps (server/compose.ts), never
 * module state:
 * - `resolved`: keys resolved to their merchant, valid while the database's change stamp is
 *   unchanged: any write in this process or a commit by another (the CLI revoking a key) drops
 *   them all, so a revoked key is refused from the next request on. Only successful lookups
 *   are kept.
 * - `usageWritten`: when each key's "last used" was last written (see noteApiKeyUse).
 * - `hashBySocket`: the last key a connection sent and its hash, so a keep-alive connection
 *   sending the same key again is not hashed again (sha256 per request was ~4 % of a
 *   session lookup). Weak: it goes with the connection, which holds the key in its requests anyway.
 */
export interface ApiKeyMemory {
  resolved: Map<string, { stamp: string; ctx: MerchantContext }>;
  usageWritten: Map<string, number>;
  hashBySocket: WeakMap<object, { token: string; hash: string }>;
}

export const createApiKeyMemory = (): ApiKeyMemory => ({ resolved: new Map(), usageWritten: new Map(), hashBySocket: new WeakMap() });

export interface MerchantAuthDeps {
  db: Db;
  apiKeys: ApiKeyMemory;
}

const KEY_CACHE_MAX = 1000;

function keyHash(memory: ApiKeyMemory, req: FastifyRequest, token: string): string {
  const socket = req.raw.socket as object | undefined;
  const seen = socket ? memory.hashBySocket.get(socket) : undefined;
  // Compared in constant time: behind a proxy one connection carries several clients' keys.
  if (seen && safeEqual(seen.token, token)) return seen.hash;
  const hash = sha256Hex(token);
  if (socket) memory.hashBySocket.set(socket, { token, hash });
  return hash;
}

/**
 * The request's key resolved from the cache, without a query: its context while the change
 * stamp is unchanged, else `stale` with what authenticateMerchant needs to look it up.
 */
function fromCache(deps: MerchantAuthDeps, req: FastifyRequest): MerchantContext | { stale: { hash: string; stamp: string } } {
  const token = bearerToken(req);
  if (!token || !KEY_SHAPE.test(token)) throw unauthorized();
  const hash = keyHash(deps.apiKeys, req, token);
  const dataVersion = commitVersion(deps.db);
  req.dataVersion = dataVersion;
  const stamp = changeStamp(deps.db, dataVersion);
  const cached = deps.apiKeys.resolved.get(hash);
  if (cached && cached.stamp === stamp) return cached.ctx;
  return { stale: { hash, stamp } };
}

/** Resolves the API key to its integration and merchant; every failure is the same 401. */
export async function authenticateMerchant(deps: MerchantAuthDeps, req: FastifyRequest): Promise<MerchantContext> {
  return authenticateMerchantFast(deps, req);
}

/**
 * authenticateMerchant for a hook that can finish synchronously: the context when the cache
 * holds the key, else a promise of the lookup. Throws (or rejects) the same 401.
 */
export function authenticateMerchantFast(deps: MerchantAuthDeps, req: FastifyRequest): MerchantContext | Promise<MerchantContext> {
  const known = fromCache(deps, req);
  return 'stale' in known ? lookUpKey(deps, known.stale.hash, known.stale.stamp) : known;
}

async function lookUpKey(deps: MerchantAuthDeps, hash: string, stamp: string): Promise<MerchantContext> {
  const { db } = deps;
  const keyCache = deps.apiKeys.resolved;
  const row = await db
    .selectFrom('api_keys as k')
    .innerJoin('integrations as i', 'i.id', 'k.integration_id')
    .innerJoin('merchants as m', 'm.id', 'i.merchant_id')
    .select(['k.id as key_id', 'k.mode', 'i.id as integration_id', 'm.id as merchant_id', 'm.name as merchant_name'])
    .where('k.key_hash', '=', hash)
    .where('k.revoked_at', 'is', null)
    .where('i.disabled_at', 'is', null)
    .executeTakeFirst();
  if (!row) {
    keyCache.delete(hash);
    throw unauthorized();
  }
  const ctx: MerchantContext = {
    merchantId: row.merchant_id,
    merchantName: row.merchant_name,
    integrationId: row.integration_id,
    apiKeyId: row.key_id,
    mode: row.mode,
  };
  if (keyCache.size >= KEY_CACHE_MAX) keyCache.delete(keyCache.keys().next().value as string);
  keyCache.set(hash, { stamp, ctx });
  return ctx;
}

/** Minute resolution is enough for "last used", and keeps a busy key from writing per request. */
const USAGE_RESOLUTION_MS = 60_000;

/**
 * Records when a key was last used (shown on the Administration screen). Kept in
 * api_key_usage, not api_keys, so it never invalidates the resolved-key cache above.
 */
export async function noteApiKeyUse(deps: MerchantAuthDeps & { clock: Clock }, apiKeyId: string): Promise<void> {
  if (!apiKeyUseDue(deps, apiKeyId)) return;
  await writeApiKeyUse(deps, apiKeyId);
}

/** Whether this key's "last used" is due to be written (no write in the last minute); no query. */
export function apiKeyUseDue(deps: MerchantAuthDeps & { clock: Clock }, apiKeyId: string): boolean {
  const last = deps.apiKeys.usageWritten.get(apiKeyId);
  return last === undefined || deps.clock.now().getTime() - last >= USAGE_RESOLUTION_MS;
}

/** Writes the key's "last used" now (noteApiKeyUse once apiKeyUseDue). */
async function writeApiKeyUse(deps: MerchantAuthDeps & { clock: Clock }, apiKeyId: string): Promise<void> {
  const now = deps.clock.now();
  deps.apiKeys.usageWritten.set(apiKeyId, now.getTime());
  const at = now.toISOString();
  await deps.db
    .insertInto('api_key_usage')
    .values({ api_key_id: apiKeyId, last_used_at: at })
    .onConflict((oc) => oc.column('api_key_id').doUpdateSet({ last_used_at: at }))
    .execute();
}
