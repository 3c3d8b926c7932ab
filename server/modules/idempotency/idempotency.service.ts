import type { Transaction } from 'kysely';
import type { Db } from '../../db/database';
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
  return db.transaction().execute(async (trx) => {
    const existing = await trx
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('integration_id', '=', k.integrationId)
      .where('key', '=', k.key)
      .executeTakeFirst();
    if (!existing || existing.expires_at <= nowIso) {
      // New key, or one past its retention: (re)start it as in flight, in one statement.
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
      await trx
        .insertInto('idempotency_keys')
        .values({ integration_id: k.integrationId, key: k.key, ...fresh })
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
      return { kind: 'replay' as const, status: existing.response_status, body: JSON.parse(existing.response_body) as unknown };
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
      .where('integration_id', '=', k.integrationId)
      .where('key', '=', k.key)
      .execute();
    return { kind: 'reserved' as const };
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

/**
 * Removes keys past their retention (called by the housekeeping timer and `db:prune`), `batch`
 * rows per statement through idempotency_keys_expiry, so a day's backlog never becomes one long
 * delete holding the event loop (issue 18). Yields between batches.
 */
export async function purgeExpiredIdempotencyKeys(db: Db, clock: Clock, batch = 1000): Promise<number> {
  const now = clock.now().toISOString();
  let purged = 0;
  for (;;) {
    const r = await db
      .deleteFrom('idempotency_keys')
      .where((eb) =>
        eb(
          eb.refTuple('integration_id', 'key'),
          'in',
          eb.selectFrom('idempotency_keys as k').select(['k.integration_id', 'k.key']).where('k.expires_at', '<=', now).limit(batch).$asTuple('integration_id', 'key'),
        ),
      )
      .executeTakeFirst();
    const n = Number(r.numDeletedRows);
    purged += n;
    if (n < batch) return purged;
    await new Promise((resolve) => setImmediate(resolve));
  }
}
