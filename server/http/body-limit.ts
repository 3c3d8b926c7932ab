import type { FastifyInstance } from 'fastify';
import { AppError } from '../lib/errors';

/**
 * Refuses a body whose declared Content-Length is over the limit before reading any of it.
 * Fastify enforces `bodyLimit` for JSON and urlencoded bodies itself, but @fastify/multipart
 * reads the raw request and only limits each field and file, so a multipart body made of many
 * fields could add up to far more than the limit. Clients (fetch with FormData, curl -F, every
 * HTTP library posting a form) declare the length; a chunked multipart body is still bounded
 * per field (1 MiB) and by the field count.
 */
export function registerBodyLimit(app: FastifyInstance, limitBytes: number): void {
  app.addHook('onRequest', async (req) => {
    const declared = req.headers['content-length'];
    if (declared !== undefined && Number(declared) > limitBytes) {
      throw new AppError('PAYLOAD_TOO_LARGE', `request body is larger than the ${limitBytes === 1_048_576 ? '1 MiB' : `${limitBytes}-byte`} limit`);
    }
  });
}
