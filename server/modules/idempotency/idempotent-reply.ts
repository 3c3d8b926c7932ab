import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Transaction } from 'kysely';
import { z } from 'zod';
import type { Database } from '../../db/schema';
import type { AppDeps } from '../../deps';
import { merchantOf } from '../auth/merchant-api';
import type { Db } from '../../db/database';
import { dialectOf } from '../../db/dialect';
import type { AppError } from '../../lib/errors';
import {
  answerOfLiveKey,
  checkIdempotencyKeyShape,
  completeIdempotencyKey,
  inFlight,
  keyReservation,
  reserveIdempotencyKey,
  type IdempotencyKey,
  type KeyReservation,
} from './idempotency.service';

export const IdempotencyHeaders = z.object({
  'idempotency-key': z.string().optional().describe('Makes the write safe to retry: same key + same body replays the original result for 24 h.'),
});

/**
 * A write whose response is known before it runs (a create: ids and times drawn first, then
 * written). The key is stored completed with the response in
 * the reservation itself (one statement fewer per keyed create); the write runs after it.
 */
export interface KnownWrite<T> {
  body: T;
  write: (trx: Transaction<Database>) => Promise<void>;
  /**
   * The same write as one autocommit statement with the key's reservation (when there is a key)
   * folded in, used where each statement is a round trip (the dialect's `oneStatementWrites`:
   * PostgreSQL) instead of BEGIN, the reservation, the write and COMMIT. It writes all or nothing;
   * when nothing, it says why unless the key is live: `refusal` is what the request answers
   * (thrown), and a live key's stored answer is replayed instead.
   */
  alone?: (db: Db, reservation: KeyReservation | undefined) => Promise<{ written: true } | { written: false; refusal: AppError | undefined }>;
}

/**
 * The one call a merchant write route makes: runs the service's write in one transaction
 * and sends its result. With an Idempotency-Key (keyed by the caller's integration, the
 * method and the route's path) the key is reserved, the write runs and the response is stored
 * with the key in that same transaction (one commit; a failed write rolls the key back with
 * it); a retry gets the stored response with `Idempotent-Replayed: true`. The status is fixed,
 * or derived from the body (207 when some lines were refused). `write` may be a KnownWrite.
 *
 * `isolation` (PostgreSQL; SQLite serialises writers anyway) is SERIALIZABLE unless the route
 * says 'read committed', which it may only when its write decides nothing from a read that a
 * concurrent writer could change under it: its correctness rests on unique constraints,
 * conditional updates and row locks alone. The idempotency reservation is such a statement
 * (idempotency.service.ts). The rule and the routes that use it: docs/performance.md.
 */
export async function sendIdempotent<T>(
  req: FastifyRequest,
  reply: FastifyReply,
  deps: Pick<AppDeps, 'db' | 'clock' | 'config'>,
  status: number | ((body: T) => number),
  write: ((trx: Transaction<Database>) => Promise<T>) | KnownWrite<T>,
  opts: { isolation?: 'read committed' } = {},
): Promise<FastifyReply> {
  const header = req.headers['idempotency-key'];
  let key: IdempotencyKey | undefined;
  if (typeof header === 'string') {
    checkIdempotencyKeyShape(header);
    key = { integrationId: merchantOf(req).integrationId, key: header, method: req.method, path: req.routeOptions.url ?? req.url, body: req.body };
  }
  // One autocommit statement is a READ COMMITTED transaction: only for a route that allows that isolation.
  if (typeof write === 'object' && write.alone && opts.isolation === 'read committed' && dialectOf(deps.db).oneStatementWrites) {
    const code = typeof status === 'number' ? status : status(write.body);
    const reservation = key ? keyReservation(deps, key, { status: code, body: write.body }) : undefined;
    const done = await write.alone(deps.db, reservation);
    if (done.written) return reply.code(code).send(write.body);
    const replay = key && reservation ? await answerOfLiveKey(deps.db, key, reservation.fingerprint) : undefined;
    if (replay) return reply.header('idempotent-replayed', 'true').code(replay.status).send(replay.body);
    // Refused before the key was reserved, or the key's row vanished between the two statements (retry shortly).
    throw done.refusal ?? inFlight();
  }
  const transaction = opts.isolation ? deps.db.transaction().setIsolationLevel(opts.isolation) : deps.db.transaction();
  const known = typeof write === 'object' ? { write: write.write, status: typeof status === 'number' ? status : status(write.body), body: write.body } : undefined;
  const result = await transaction.execute(async (trx) => {
    if (key) {
      const reserved = await reserveIdempotencyKey(trx, deps, key, known);
      if (reserved.kind === 'replay') return { code: reserved.status, body: reserved.body as unknown, replayed: true };
    }
    if (known) {
      await known.write(trx);
      return { code: known.status, body: known.body as unknown, replayed: false };
    }
    const body = await (write as (trx: Transaction<Database>) => Promise<T>)(trx);
    const code = typeof status === 'number' ? status : status(body);
    if (key) await completeIdempotencyKey(trx, key, code, body);
    return { code, body: body as unknown, replayed: false };
  });
  if (result.replayed) reply.header('idempotent-replayed', 'true');
  return reply.code(result.code).send(result.body);
}
