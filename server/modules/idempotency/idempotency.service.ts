import type { Transaction } from 'kysely';
import type { Db } from '../../db/database';
import { isPostgres } from '../../db/engine';
import type { Database } from '../../db/schema';
import type { Clock } from '../../lib/clock';
import type { AppDeps } from '../../deps';
import { AppError, invalid } from '../../lib/errors';
import { canonicalJson, sha256Hex } from '../../lib/hash';

/** An in-flight record older than this is taken to belong to a request that died (crash, kill -9). */
export const IN_FLIGHT_STALE_AFTER_MS = 60_000;

/** One write's key: the caller's integration, the Idempotency-Key, and what the request was. */
export interface IdempotencyKey {
  integrationId: string;
  key: string;
  method: string;
  path: string;
  body: unknown;
}

const KEY_SHAPE = /^[\x21-\x7e]{1,255}$/;

const fingerprintOf = (k: IdempotencyKey) => sha256Hex(`${k.method} ${k.path}\n${canonicalJson(k.body)}`);

/**
 * A write runs at most once per (integration, Idempotency-Key), after the IETF
 * Idempotency-Key draft and Stripe. `reserveIdempotencyKey` is the first step and commits on
 * its own, so concurrent retries see the key and get 409 IDEMPOTENCY_KEY_IN_FLIGHT; the write
 * and `completeIdempotencyKey` then commit together in one transaction. Same key + same body
 * replays the stored status and body; same key + different body is 422
 * IDEMPOTENCY_KEY_REUSED. A write that fails calls `releaseIdempotencyKey` so the client can
 * retry. (The caller, idempotent-reply.ts, runs the three steps.)
 */
export async function reserveIdempotencyKey(
  { db, clock, config }: Pick<AppDeps, 'db' | 'clock' | 'config'>,
  k: IdempotencyKey,
): Promise<{ kind: 'reserved' } | { kind: 'replay'; status: number; body: unknown }> {
  if (!KEY_SHAPE.test(k.key)) throw invalid('Idempotency-Key', 'must be 1 to 255 printable ASCII characters');
  const fingerprint = fingerprintOf(k);
  const now = clock.now();
  const nowIso = now.toISOString();
  const fresh = {
    method: k.method,
    path: k.path,
    fingerprint,
    state: 'in_flight' as const,
    response_status: null,
    response_body: null,
    created_at: nowIso,
    expires_at: new Date(now.getTime() + config.idempotencyRetentionSeconds * 1000).toISOString(),
  };
  const keyed = { integration_id: k.integrationId, key: k.key };
  // Insert first, read only on conflict: the unique (integration_id, key) decides the one
  // winner, so this is correct at READ COMMITTED, which PostgreSQL is given here. At
  // SERIALIZABLE a read-then-insert takes predicate locks on index pages, and concurrent
  // reservations of *different* keys then abort each other (docs/performance.md).
  const transaction = isPostgres(db) ? db.transaction().setIsolationLevel('read committed') : db.transaction();
  return transaction.execute(async (trx) => {
    const inserted = await trx.insertInto('idempotency_keys').values({ ...keyed, ...fresh }).onConflict((oc) => oc.columns(['integration_id', 'key']).doNothing()).returning('key').executeTakeFirst();
    if (inserted) return { kind: 'reserved' as const };
    const existing = await trx.selectFrom('idempotency_keys').selectAll().where('integration_id', '=', k.integrationId).where('key', '=', k.key).executeTakeFirst();
    if (!existing) {
      // Released between our insert and our read (its write failed): the next try is a new key.
      throw new AppError('IDEMPOTENCY_KEY_IN_FLIGHT', 'a request with this Idempotency-Key is still being processed; retry shortly', { retryAfterSeconds: 1 });
    }
    if (existing.expires_at <= nowIso) {
      // Past its retention: restart it as in flight, if no concurrent request did first.
      const taken = await trx
        .updateTable('idempotency_keys')
        .set(fresh)
        .where('integration_id', '=', k.integrationId)
        .where('key', '=', k.key)
        .where('expires_at', '=', existing.expires_at)
        .executeTakeFirst();
      if (Number(taken.numUpdatedRows) === 1) return { kind: 'reserved' as const };
      throw new AppError('IDEMPOTENCY_KEY_IN_FLIGHT', 'a request with this Idempotency-Key is still being processed; retry shortly', { retryAfterSeconds: 1 });
    }
    if (existing.fingerprint !== fingerprint) {
      throw new AppError(
        'IDEMPOTENCY_KEY_REUSED',
        'Idempotency-Key was already used with a different request body; retry with the original body or a new key',
      );
    }
    if (existing.state === 'completed' && existing.response_status !== null && existing.response_body !== null) {
      return { kind: 'replay' as const, status: existing.response_status, body: JSON.parse(existing.response_body) as unknown };
    }
    if (now.getTime() - new Date(existing.created_at).getTime() < IN_FLIGHT_STALE_AFTER_MS) {
      throw new AppError('IDEMPOTENCY_KEY_IN_FLIGHT', 'a request with this Idempotency-Key is still being processed; retry shortly', {
        retryAfterSeconds: 1,
      });
    }
    // The first request died before finishing: take the key over (one taker, by the stamp it had).
    const taken = await trx
      .updateTable('idempotency_keys')
      .set({ created_at: nowIso })
      .where('integration_id', '=', k.integrationId)
      .where('key', '=', k.key)
      .where('state', '=', 'in_flight')
      .where('created_at', '=', existing.created_at)
      .executeTakeFirst();
    if (Number(taken.numUpdatedRows) === 1) return { kind: 'reserved' as const };
    throw new AppError('IDEMPOTENCY_KEY_IN_FLIGHT', 'a request with this Idempotency-Key is still being processed; retry shortly', { retryAfterSeconds: 1 });
  });
}

/** Stores the response with the key, inside the write's own transaction. */
export async function completeIdempotencyKey(trx: Transaction<Database>, k: IdempotencyKey, status: number, body: unknown): Promise<void> {
  await trx
    .updateTable('idempotency_keys')
    .set({ state: 'completed', response_status: status, response_body: JSON.stringify(body) })
    .where('integration_id', '=', k.integrationId)
    .where('key', '=', k.key)
    .execute();
}

/** Frees a key whose write failed (only while in flight: a completed key keeps its response). */
export async function releaseIdempotencyKey(db: Db, k: IdempotencyKey): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('integration_id', '=', k.integrationId)
    .where('key', '=', k.key)
    .where('state', '=', 'in_flight')
    .execute();
}

/** Removes keys past their retention (called by the housekeeping timer). */
export async function purgeExpiredIdempotencyKeys(db: Db, clock: Clock): Promise<number> {
  const r = await db.deleteFrom('idempotency_keys').where('expires_at', '<=', clock.now().toISOString()).executeTakeFirst();
  return Number(r.numDeletedRows);
}
