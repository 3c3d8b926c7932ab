import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Transaction } from 'kysely';
import { z } from 'zod';
import type { Database } from '../../db/schema';
import type { AppDeps } from '../../deps';
import { merchantOf } from '../auth/merchant-api';
import { runIdempotent } from './idempotency.service';

export const IdempotencyHeaders = z.object({
  'idempotency-key': z.string().optional().describe('Makes the write safe to retry: same key + same body replays the original result for 24 h.'),
});

/**
 * The one call a merchant write route makes: runs the service's write under the request's
 * Idempotency-Key (keyed by the caller's integration, the method and the route's path) and
 * sends its result, or the stored one with `Idempotent-Replayed: true`. The status is fixed
 * or derived from the body (207 when some lines were refused).
 */
export async function sendIdempotent<T>(
  req: FastifyRequest,
  reply: FastifyReply,
  deps: Pick<AppDeps, 'db' | 'clock' | 'config'>,
  status: number | ((body: T) => number),
  write: (trx: Transaction<Database>) => Promise<T>,
): Promise<FastifyReply> {
  const result = await runIdempotent(
    {
      db: deps.db,
      clock: deps.clock,
      integrationId: merchantOf(req).integrationId,
      key: req.headers['idempotency-key'] as string | undefined,
      method: req.method,
      path: req.routeOptions.url ?? req.url,
      body: req.body,
      retentionSeconds: deps.config.idempotencyRetentionSeconds,
    },
    async (trx) => {
      const body = await write(trx);
      return { status: typeof status === 'number' ? status : status(body), body };
    },
  );
  if (result.replayed) reply.header('idempotent-replayed', 'true');
  return reply.code(result.status).send(result.body);
}
