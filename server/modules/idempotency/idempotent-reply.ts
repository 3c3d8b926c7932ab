import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Transaction } from 'kysely';
import { z } from 'zod';
import type { Database } from '../../db/schema';
import type { AppDeps } from '../../deps';
import { merchantOf } from '../auth';
import { checkIdempotencyKeyShape, completeIdempotencyKey, reserveIdempotencyKey, type IdempotencyKey } from './idempotency.service';

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
