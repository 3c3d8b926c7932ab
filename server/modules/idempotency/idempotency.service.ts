import type { Transaction } from 'kysely';
import type { Db } from '../../db/database';
import type { Database } from '../../db/schema';
import type { Clock } from '../../lib/clock';
import { AppError, invalid } from '../../lib/errors';
import { canonicalJson, sha256Hex } from '../../lib/hash';

export interface IdempotentResult<T> {
  status: number;
  body: T;
  replayed: boolean;
}

/** An in-flight record older than this is taken to belong to a request that died (crash, kill -9). */
export const IN_FLIGHT_STALE_AFTER_MS = 60_000;

export interface IdempotencyScope {
  db: Db;
  clock: Clock;
  integrationId: string;
  key: string | undefined;
  method: string;
  path: string;
  body: unknown;
  retentionSeconds: number;
}

const KEY_SHAPE = /^[\x21-\x7e]{1,255}$/;

/**
 * Runs a write at most once per (integration, Idempotency-Key), after the IETF
 * Idempotency-Key draft and Stripe: the first request reserves the key (committed, so
 * concurrent retries see it and get 409 IDEMPOTENCY_KEY_IN_FLIGHT), then the write and the
 * stored response commit together in one transaction. Same key + same body replays the
 * stored status and body; same key + different body is 422 IDEMPOTENCY_KEY_REUSED.
 * A write that fails releases the key so the client can retry.
 */
export async function runIdempotent<T>(
  scope: IdempotencyScope,
  exec: (trx: Transaction<Database>) => Promise<{ status: number; body: T }>,
): Promise<IdempotentResult<T>> {
  const { db, clock, integrationId, key } = scope;
  if (key === undefined) {
    const r = await db.transaction().execute(exec);
    return { ...r, replayed: false };
  }
  if (!KEY_SHAPE.test(key)) throw invalid('Idempotency-Key', 'must be 1 to 255 printable ASCII characters');
  const fingerprint = sha256Hex(`${scope.method} ${scope.path}\n${canonicalJson(scope.body)}`);
  const now = clock.now();
  const nowIso = now.toISOString();

  const reserved = await db.transaction().execute(async (trx) => {
    const existing = await trx
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('integration_id', '=', integrationId)
      .where('key', '=', key)
      .executeTakeFirst();
    if (!existing || existing.expires_at <= nowIso) {
      // New key, or one past its retention: (re)start it as in flight, in one statement.
      const fresh = {
        method: scope.method,
        path: scope.path,
        fingerprint,
        state: 'in_flight' as const,
        response_status: null,
        response_body: null,
        created_at: nowIso,
        expires_at: new Date(now.getTime() + scope.retentionSeconds * 1000).toISOString(),
      };
      await trx
        .insertInto('idempotency_keys')
        .values({ integration_id: integrationId, key, ...fresh })
        .onConflict((oc) => oc.columns(['integration_id', 'key']).doUpdateSet(fresh))
        .execute();
      return { kind: 'reserved' as const };
    }
    if (existing.fingerprint !== fingerprint) {
      throw new AppError(
        'IDEMPOTENCY_KEY_REUSED',
        'Idempotency-Key was already used with a different request body; retry with the original body or a new key',
      );
    }
    if (existing.state === 'completed' && existing.response_status !== null && existing.response_body !== null) {
      return { kind: 'replay' as const, status: existing.response_status, body: JSON.parse(existing.response_body) as T };
    }
    if (now.getTime() - new Date(existing.created_at).getTime() < IN_FLIGHT_STALE_AFTER_MS) {
      throw new AppError('IDEMPOTENCY_KEY_IN_FLIGHT', 'a request with this Idempotency-Key is still being processed; retry shortly', {
        retryAfterSeconds: 1,
      });
    }
    // The first request died before finishing: take the key over.
    await trx
      .updateTable('idempotency_keys')
      .set({ created_at: nowIso })
      .where('integration_id', '=', integrationId)
      .where('key', '=', key)
      .execute();
    return { kind: 'reserved' as const };
  });

  if (reserved.kind === 'replay') return { status: reserved.status, body: reserved.body, replayed: true };

  try {
    const result = await db.transaction().execute(async (trx) => {
      const r = await exec(trx);
      await trx
        .updateTable('idempotency_keys')
        .set({ state: 'completed', response_status: r.status, response_body: JSON.stringify(r.body) })
        .where('integration_id', '=', integrationId)
        .where('key', '=', key)
        .execute();
      return r;
    });
    return { ...result, replayed: false };
  } catch (err) {
    await db
      .deleteFrom('idempotency_keys')
      .where('integration_id', '=', integrationId)
      .where('key', '=', key)
      .where('state', '=', 'in_flight')
      .execute();
    throw err;
  }
}

/** Removes keys past their retention (called by the housekeeping timer). */
export async function purgeExpiredIdempotencyKeys(db: Db, clock: Clock): Promise<number> {
  const r = await db.deleteFrom('idempotency_keys').where('expires_at', '<=', clock.now().toISOString()).executeTakeFirst();
  return Number(r.numDeletedRows);
}
