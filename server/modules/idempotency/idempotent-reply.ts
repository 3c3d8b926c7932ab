import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { merchantOf } from '../auth';
import { checkIdempotencyKeyShape, type IdempotencyKey, type KeyedAnswer } from './idempotency.service';

export const IdempotencyHeaders = z.object({
  'idempotency-key': z.string().optional().describe('Makes the write safe to retry: same key + same body replays the original result for 24 h.'),
});

/**
 * The request's Idempotency-Key, checked (400 naming the header) before any database work, and
 * scoped to the caller's integration, the method and the route's path; undefined when none was
 * sent. The route hands it to the service, which reserves it in the write's own transaction.
 */
export function idempotencyKeyOf(req: FastifyRequest): IdempotencyKey | undefined {
  const header = req.headers['idempotency-key'];
  if (typeof header !== 'string') return undefined;
  checkIdempotencyKeyShape(header);
  return { integrationId: merchantOf(req).integrationId, key: header, method: req.method, path: req.routeOptions.url ?? req.url, body: req.body };
}

/** Sends a keyed write's answer; a replay says so with `Idempotent-Replayed: true`. */
export function sendKeyed(reply: FastifyReply, answer: KeyedAnswer<unknown>): FastifyReply {
  if (answer.replayed) reply.header('idempotent-replayed', 'true');
  return reply.code(answer.status).send(answer.body);
}
