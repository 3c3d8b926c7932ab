import type { FastifyInstance } from 'fastify';
import { AppError } from '../lib/errors';

/**
 * Refuses a body whose declared Content-Length is over the limit before reading any of it (and
 * before authentication or rate limiting spend anything on it). Bodies without a declared
 * length (chunked) are bounded as they are read: every body parser (JSON, urlencoded,
 * multipart: body-parsers.ts) reads through Fastify's byte-counting reader with the same limit.
 */
export function registerBodyLimit(app: FastifyInstance, limitBytes: number): void {
  app.addHook('onRequest', (req, _reply, done) => {
    const declared = req.headers['content-length'];
    if (declared !== undefined && Number(declared) > limitBytes) {
      throw new AppError('PAYLOAD_TOO_LARGE', `request body is larger than the ${limitBytes === 1_048_576 ? '1 MiB' : `${limitBytes}-byte`} limit`);
    }
    done();
  });
}
