import type { FastifyBaseLogger, FastifyRequest } from 'fastify';

/**
 * Query parameters the API defines; their values are logged. Any other parameter keeps its
 * name but not its value: a card number typed into a form that fell back to GET (no script
 * loaded), or pasted into a link, must never reach a log (CONTRACT §5).
 */
const LOGGED_QUERY_PARAMS = new Set(['refresh', 'include_inactive', 'invoice_ref']);

export function loggableUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const params = new URLSearchParams(url.slice(q + 1));
  const parts: string[] = [];
  for (const [key, value] of params) {
    parts.push(LOGGED_QUERY_PARAMS.has(key) ? `${encodeURIComponent(key)}=${encodeURIComponent(value)}` : `${encodeURIComponent(key)}=[redacted]`);
  }
  return `${url.slice(0, q)}?${parts.join('&')}`;
}

/** Fastify's request serializer, with the query string made safe to log. */
function serializeRequest(req: FastifyRequest) {
  return {
    method: req.method,
    url: loggableUrl(req.url),
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket ? req.socket.remotePort : undefined,
  };
}

/** A child of the given logger whose `req` serializer never logs query values it does not know. */
export function withSafeRequestLog(logger: FastifyBaseLogger): FastifyBaseLogger {
  return logger.child({}, { serializers: { req: serializeRequest } }) as FastifyBaseLogger;
}
