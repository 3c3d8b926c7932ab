import type { QueryCreator, SelectQueryBuilder, Transaction } from 'kysely';
import type { Db } from '../../db/database';
import { precompiled } from '../../db/precompiled';
import type { Database, IdempotencyKeysTable } from '../../db/schema';
import type { Clock } from '../../lib/clock';
import type { AppDeps } from '../../deps';
import { AppError, invalid } from '../../lib/errors';
import { canonicalJson, sha256Hex } from '../../lib/hash';

/** An in-flight record older than this is taken to belong to a request that died (crash, kill -9). */
const IN_FLIGHT_STALE_AFTER_MS = 60_000;

/** One write's key: the caller's integration, the Idempotency-Key, and what the request was. */
export interface IdempotencyKey {
  integrationId: string;
  key: string;
  method: string;
  path: string;
  body: unknown;
}

const KEY_SHAPE = /^[\x21-\x7e]{1,255}$/;

/** Every column of a key row, in the order an INSERT … SELECT of one gives them (keyUpsert). */
const KEY_COLUMNS = ['integration_id', 'key', 'method', 'path', 'fingerprint', 'state', 'response_status', 'response_body', 'created_at', 'expires_at'] as const;
type KeyRowValues = { [C in (typeof KEY_COLUMNS)[number]]: IdempotencyKeysTable[C] };

// The statements of every keyed write, compiled once.
const keyRow = precompiled((db, p: { integrationId: string; key: string }) =>
  db
    .selectFrom('idempotency_keys')
    .select(['fingerprint', 'state', 'response_status', 'response_body', 'created_at', 'expires_at'])
    .where('integration_id', '=', p.integrationId)
    .where('key', '=', p.key),
);
/**
 * Inserts the reservation, or takes over the key's row when it is past its retention or is a
 * dead reservation of an earlier version with the same body: nothing else. RETURNING tells which
 * happened; no row back means the key is live and is read next. No read comes before it, so on
 * PostgreSQL concurrent writes with different keys take no predicate locks on the key index (they
 * aborted one another at SERIALIZABLE: docs/performance.md), and the conflict check runs on the
 * row's latest committed version, under a row lock, at every isolation level.
 */
/** A reservation's row and its takeover bounds: what reserveKey writes, and what a one-statement write folds in (keyUpsert). */
export type KeyReservation = IdempotencyKeysTable & { now: string; staleBefore: string };

/**
 * The reservation's upsert (see reserveKey below), of `source` when given (an INSERT … SELECT
 * whose WHERE gates it: a one-statement write, modules/sessions/sessions.repository.ts), else of
 * the reservation's own values. RETURNING `key` says whether it was written.
 */
export const keyUpsert = (qc: QueryCreator<Database>, p: KeyReservation, source?: (qc: QueryCreator<Database>) => SelectQueryBuilder<Database, never, KeyRowValues>) => {
  const fresh = {
    method: p.method,
    path: p.path,
    fingerprint: p.fingerprint,
    state: p.state,
    response_status: p.response_status,
    response_body: p.response_body,
    created_at: p.created_at,
    expires_at: p.expires_at,
  };
  const into = qc.insertInto('idempotency_keys');
  const inserted = source
    ? into.columns(KEY_COLUMNS).expression(source(qc))
    : into.values({ integration_id: p.integration_id, key: p.key, ...fresh });
  return inserted
    .onConflict((oc) =>
      oc
        .columns(['integration_id', 'key'])
        .doUpdateSet(fresh)
        .where((eb) =>
          eb.or([
            eb('idempotency_keys.expires_at', '<=', p.now),
            eb.and([
              eb('idempotency_keys.state', '=', 'in_flight'),
              eb('idempotency_keys.created_at', '<=', p.staleBefore),
              eb('idempotency_keys.fingerprint', '=', eb.ref('excluded.fingerprint')),
            ]),
          ]),
        ),
    )
    .returning('key');
};
const reserveKey = precompiled((db, p: KeyReservation) => keyUpsert(db, p));
const completeKey = precompiled((db, p: { integrationId: string; key: string; status: number; body: string }) =>
  db
    .updateTable('idempotency_keys')
    .set({ state: 'completed', response_status: p.status, response_body: p.body })
    .where('integration_id', '=', p.integrationId)
    .where('key', '=', p.key),
);

const fingerprintOf = (k: IdempotencyKey) => sha256Hex(`${k.method} ${k.path}\n${canonicalJson(k.body)}`);

/**
 * A write runs at most once per (integration, Idempotency-Key), after the IETF
 * Idempotency-Key draft and Stripe. The service that owns the write opens its transaction and
 * calls `idempotency.reserve` first **inside it**; the write and `idempotency.complete` follow in
 * that same transaction, so
 * an idempotent write is one commit (docs/performance.md) and a failed write leaves no key
 * behind (its transaction rolls back). A concurrent request with the same key waits and then
 * replays: on SQLite BEGIN IMMEDIATE holds every other writer (this process's or another's)
 * until the commit; on PostgreSQL the reservation's insert blocks on the first request's
 * uncommitted row and, once that commits, either fails as a serialization failure (at
 * SERIALIZABLE the conflict row is invisible to its snapshot), which server/db/postgres.ts
 * retries, the re-run seeing the completed key, or (at READ COMMITTED, when the service opens
 * its transaction so) checks its takeover condition on the committed row, which is live, so it returns
 * nothing and the read that follows (a new snapshot) replays it. Same key + same body replays the stored
 * status and body; same key + different body is 422 IDEMPOTENCY_KEY_REUSED.
 *
 * 409 IDEMPOTENCY_KEY_IN_FLIGHT is answered for a key whose `in_flight` row was committed
 * without its response, which this version never does: only a server of an earlier version
 * (two-phase reservation) running on the same database during an upgrade leaves one, or a
 * restore taken mid-write of such a server. After IN_FLIGHT_STALE_AFTER_MS the key is taken over.
 */
async function reserveIdempotencyKey(
  trx: Transaction<Database>,
  deps: Pick<AppDeps, 'clock' | 'config'>,
  k: IdempotencyKey,
  /**
   * The response, when the write's is known before it runs (a create whose ids and times are
   * drawn first): the key is stored completed with it at once, and `complete` is not
   * called. It is only ever committed with the write (one transaction, which a failed write rolls back).
   */
  known?: { status: number; body: unknown },
): Promise<{ kind: 'reserved' } | { kind: 'replay'; status: number; body: unknown }> {
  // New key, one past its retention, or a dead reservation: (re)start it, in one statement.
  const reservation = keyReservation(deps, k, known);
  const reserved = await reserveKey(trx, reservation);
  if (reserved.length > 0) return { kind: 'reserved' as const };
  const replay = await answerOfLiveKey(trx, k, reservation.fingerprint);
  if (replay) return replay;
  // Purged since the insert saw it: retry shortly.
  throw inFlight();
}

/** The row a reservation of `k` writes now (completed with `known` when the response is known before the write). */
function keyReservation({ clock, config }: Pick<AppDeps, 'clock' | 'config'>, k: IdempotencyKey, known?: { status: number; body: unknown }): KeyReservation {
  const now = clock.now();
  const nowIso = now.toISOString();
  return {
    integration_id: k.integrationId,
    key: k.key,
    method: k.method,
    path: k.path,
    fingerprint: fingerprintOf(k),
    state: known ? 'completed' : 'in_flight',
    response_status: known ? known.status : null,
    response_body: known ? JSON.stringify(known.body) : null,
    created_at: nowIso,
    expires_at: new Date(now.getTime() + config.idempotencyRetentionSeconds * 1000).toISOString(),
    now: nowIso,
    staleBefore: new Date(now.getTime() - IN_FLIGHT_STALE_AFTER_MS).toISOString(),
  };
}

/**
 * What a request answers when its key's reservation wrote nothing because the key is live: the
 * stored response to replay, 422 for another body, 409 IDEMPOTENCY_KEY_IN_FLIGHT for a
 * reservation still without its response; undefined when the key has no row (purged since, or
 * never written: a one-statement write refused before it).
 */
async function answerOfLiveKey(db: Db, k: IdempotencyKey, fingerprint: string): Promise<{ kind: 'replay'; status: number; body: unknown } | undefined> {
  const [existing] = await keyRow(db, { integrationId: k.integrationId, key: k.key });
  if (!existing) return undefined;
  if (existing.fingerprint !== fingerprint) {
    throw new AppError(
      'IDEMPOTENCY_KEY_REUSED',
      'Idempotency-Key was already used with a different request body; retry with the original body or a new key',
    );
  }
  if (existing.state === 'completed' && existing.response_status !== null && existing.response_body !== null) {
    return { kind: 'replay' as const, status: existing.response_status, body: JSON.parse(existing.response_body) as unknown };
  }
  throw inFlight();
}

/** A key whose write is still being processed (an earlier version's reservation), or whose row vanished under the request. */
const inFlight = () =>
  new AppError('IDEMPOTENCY_KEY_IN_FLIGHT', 'a request with this Idempotency-Key is still being processed; retry shortly', {
    retryAfterSeconds: 1,
  });

/** What a keyed write answered: its status and body, and whether it is the stored answer replayed. */
export interface KeyedAnswer<T> {
  status: number;
  body: T;
  replayed: boolean;
}

/**
 * The idempotency key of a write, as its service uses it inside the transaction it opened:
 * `reserve(trx, deps, key, known?)` first (a replay ends the write there: answer the stored
 * response), then the write, then `complete(trx, key, status, body)` unless the response was
 * `known` at the reservation. Without a key the service just writes.
 */
export const idempotency = {
  reserve: reserveIdempotencyKey,
  complete: completeIdempotencyKey,
  /**
   * For a write that folds the reservation into one statement of its own (keyUpsert as a CTE, on
   * PostgreSQL): `reservation` is the row to upsert; when that statement wrote nothing, `afterRefused`
   * gives the live key's answer (a replay, or it throws 422 / 409 in flight), or undefined when the
   * key has no row, which the write then answers with its own refusal.
   */
  reservation: keyReservation,
  afterRefused: async <T>(db: Db, k: IdempotencyKey, reservation: KeyReservation): Promise<KeyedAnswer<T> | undefined> => {
    const replay = await answerOfLiveKey(db, k, reservation.fingerprint);
    return replay ? { status: replay.status, body: replay.body as T, replayed: true } : undefined;
  },
  inFlight,
  /** The answer of a reservation that found the write done: its stored status and body. */
  replayed: <T>(r: { status: number; body: unknown }): KeyedAnswer<T> => ({ status: r.status, body: r.body as T, replayed: true }),
};

/** Checks the key's shape before any database work (400 naming the header). */
export function checkIdempotencyKeyShape(key: string): void {
  if (!KEY_SHAPE.test(key)) throw invalid('Idempotency-Key', 'must be 1 to 255 printable ASCII characters');
}

/** Stores the response with the key, inside the write's own transaction. */
async function completeIdempotencyKey(trx: Transaction<Database>, k: IdempotencyKey, status: number, body: unknown): Promise<void> {
  await completeKey(trx, { integrationId: k.integrationId, key: k.key, status, body: JSON.stringify(body) });
}

/**
 * Removes keys past their retention (called by the housekeeping timer and `db:prune`), `batch`
 * rows per statement through idempotency_keys_expiry, so a day's backlog never becomes one long
 * delete holding the event loop. Yields between batches. `db:prune` calls this one too.
 */
export async function purgeExpiredIdempotencyKeys(db: Db, clock: Clock, batch = 1000): Promise<number> {
  const now = clock.now().toISOString();
  let purged = 0;
  for (;;) {
    const r = await db
      .deleteFrom('idempotency_keys')
      // Said again on the row itself: at READ COMMITTED, PostgreSQL re-checks the outer condition
      // on the current version of a row a concurrent reuse refreshed (its upsert set a new
      // expires_at) while this waited on its lock, and the key, just reused, stays.
      .where('expires_at', '<=', now)
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
