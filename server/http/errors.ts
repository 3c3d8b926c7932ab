import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyBaseLogger, FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import { DATABASE_RETRY_AFTER_SECONDS, isDatabaseUnavailable } from '../db/connection-errors';
import { AppError, ERROR_CODES, errorBody, formatPath, type ErrorCode } from '../lib/errors';

const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'INVALID_ARGUMENT',
  FST_ERR_CTP_BODY_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'INVALID_ARGUMENT',
  FST_ERR_CTP_INVALID_JSON_BODY: 'INVALID_ARGUMENT',
  FST_ERR_VALIDATION: 'INVALID_ARGUMENT',
};

/** The error envelope with the request's id (`error.request_id`, also in the X-Request-Id header). */
function envelope(req: FastifyRequest, code: string, message: string, retryAfterSeconds?: number) {
  const body = errorBody(code, message, retryAfterSeconds);
  return { error: { ...body.error, request_id: req.id } };
}

function messageFor(code: ErrorCode, err: FastifyError): string {
  switch (code) {
    case 'UNSUPPORTED_MEDIA_TYPE':
      return 'Content-Type must be application/json, application/x-www-form-urlencoded or multipart/form-data';
    case 'PAYLOAD_TOO_LARGE':
      return 'request body is larger than the 1 MiB limit';
    default:
      if (err.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') return 'body: a JSON body is required when Content-Type is application/json';
      if (err.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || err instanceof SyntaxError) return 'body: malformed JSON';
      if (err.code === 'FST_ERR_CTP_INVALID_CONTENT_LENGTH') return 'body: its length does not match the Content-Length header';
      // Never the exception's own text: it can be an engine or library message ("Maximum call stack size exceeded").
      return 'body: could not be read';
  }
}

/** Where a validation issue sits: `body`, `querystring`, `params` or `headers` become the field's own path. */
function describeValidation(err: FastifyError): string {
  if (hasZodFastifySchemaValidationErrors(err)) {
    const first = err.validation[0];
    if (first) {
      const segments = first.instancePath.split('/').filter(Boolean).map((s) => (/^\d+$/.test(s) ? Number(s) : s));
      const path = formatPath(segments);
      const msg = first.message ?? 'is invalid';
      const where = path || (err.validationContext === 'body' ? 'body' : err.validationContext ?? 'request');
      return `${where}: ${msg}`;
    }
  }
  return err.message;
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, req: FastifyRequest, reply: FastifyReply) => {
    if (err instanceof AppError) {
      if (err.retryAfterSeconds !== undefined) reply.header('retry-after', String(err.retryAfterSeconds));
      return reply.code(err.status).send(envelope(req, err.code, err.message, err.retryAfterSeconds));
    }
    if (err.validationContext === 'params') {
      // Path parameters are identifiers: one that cannot exist (too long, wrong shape) names no
      // resource, the same 404 as an id that merely is unknown.
      return reply.code(404).send(envelope(req, 'NOT_FOUND', noResourceAt(req)));
    }
    if (hasZodFastifySchemaValidationErrors(err) || err.validation) {
      return reply.code(400).send(envelope(req, 'INVALID_ARGUMENT', describeValidation(err)));
    }
    if (isResponseSerializationError(err)) {
      req.log.error({ err, issues: err.cause?.issues }, 'response failed its schema');
      return reply.code(500).send(envelope(req, 'INTERNAL_ERROR', 'internal error'));
    }
    const mapped = err.code ? FASTIFY_CODES[err.code] : undefined;
    if (mapped) return reply.code(ERROR_CODES[mapped].status).send(envelope(req, mapped, messageFor(mapped, err)));
    if (err instanceof SyntaxError || (err.statusCode === 400 && !err.code)) {
      return reply.code(400).send(envelope(req, 'INVALID_ARGUMENT', messageFor('INVALID_ARGUMENT', err)));
    }
    if (err.statusCode === 413) return reply.code(413).send(envelope(req, 'PAYLOAD_TOO_LARGE', messageFor('PAYLOAD_TOO_LARGE', err)));
    if (err.statusCode === 415) return reply.code(415).send(envelope(req, 'UNSUPPORTED_MEDIA_TYPE', messageFor('UNSUPPORTED_MEDIA_TYPE', err)));
    if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
      req.log.warn({ err }, 'client error without a mapped code');
      return reply.code(400).send(envelope(req, 'INVALID_ARGUMENT', 'request: could not be processed'));
    }
    if (isDatabaseUnavailable(err)) {
      // A lost or refused database connection (failover, restart): nothing was committed, retry.
      req.log.warn({ err }, 'database unavailable');
      reply.header('retry-after', String(DATABASE_RETRY_AFTER_SECONDS));
      return reply.code(503).send(envelope(req, 'SERVICE_UNAVAILABLE', 'the database is unavailable; retry shortly', DATABASE_RETRY_AFTER_SECONDS));
    }
    req.log.error({ err }, 'unhandled error');
    return reply.code(500).send(envelope(req, 'INTERNAL_ERROR', 'internal error'));
  });

  app.setNotFoundHandler((req, reply) => {
    reply.code(404).send(envelope(req, 'NOT_FOUND', `no route for ${req.method} ${req.url.split('?')[0]}`));
  });
}

function noResourceAt(req: FastifyRequest): string {
  const path = req.url.split('?')[0] ?? '';
  return `no resource at ${req.method} ${path.slice(0, 120)}${path.length > 120 ? '…' : ''}`;
}

/**
 * Errors Fastify's router raises before any route or hook runs (they bypass the error
 * handler): a path parameter longer than the router accepts names no resource (404), a path
 * that is not valid percent-encoding is a bad request (400). Both in the envelope.
 */
export function frameworkErrors(err: FastifyError, req: FastifyRequest, reply: FastifyReply): void {
  reply.header('x-request-id', req.id);
  if (err.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    reply.code(404).send(envelope(req, 'NOT_FOUND', noResourceAt(req)));
    return;
  }
  if (err.code === 'FST_ERR_BAD_URL') {
    reply.code(400).send(envelope(req, 'INVALID_ARGUMENT', 'path: is not a valid URL (bad percent-encoding)'));
    return;
  }
  req.log.error({ err }, 'router error');
  reply.code(500).send(envelope(req, 'INTERNAL_ERROR', 'internal error'));
}


/**
 * Errors Node's HTTP parser meets before Fastify sees a request (a request line that is not
 * HTTP, headers over 16 KiB, a request that did not all arrive within REQUEST_TIMEOUT_S): the
 * same envelope as every other error, written on the socket, which is then closed.
 */
export function clientErrorHandler(this: { log: FastifyBaseLogger }, err: Error & { code?: string }, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, code, message]: [number, ErrorCode, string] =
    err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'REQUEST_TIMEOUT', 'request: did not arrive in time (headers and body); the connection is closed']
      : err.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'HEADERS_TOO_LARGE', 'headers: larger than the server accepts']
        : [400, 'INVALID_ARGUMENT', 'request: is not valid HTTP/1.1'];
  this.log.debug({ code: err.code }, 'client error');
  if (socket.writable) {
    const body = JSON.stringify(errorBody(code, message));
    socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  }
  socket.destroy();
}
