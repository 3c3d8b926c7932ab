import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';

/**
 * The request id correlates a client's report, the answer and the log line. A caller (a proxy,
 * a merchant's client) may pick it with `X-Request-Id` when it is a bounded token: 1 to 128
 * letters, digits and `._:@/+=-` (base64 and UUID ids fit), nothing a log reader or a terminal
 * could misread; a 12 KB header is not copied into every line. Anything else
 * (longer, spaces, control characters, several headers) is ignored and a fresh id is drawn: a
 * random prefix per app and a counter, not a CSPRNG call per request.
 * The id is echoed in the `X-Request-Id` header of every answer and, on errors, in
 * `error.request_id` (http/errors.ts).
 */
const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

export function requestIdGenerator(prefix: string): (raw: IncomingMessage) => string {
  let count = 0;
  return (raw) => {
    const given = raw.headers['x-request-id'];
    if (typeof given === 'string' && REQUEST_ID_PATTERN.test(given)) return given;
    return `${prefix}.${(++count).toString(36)}`;
  };
}

export function registerRequestId(app: FastifyInstance): void {
  // Callback style, as every hook that runs on each request: no promise and microtask per hook.
  app.addHook('onRequest', (req, reply, done) => {
    reply.header('x-request-id', req.id);
    done();
  });
}
