import { LogController, type FastifyBaseLogger, type FastifyReply, type FastifyRequest } from 'fastify';

/**
 * Query parameters the API defines; their values are logged. Any other parameter keeps its
 * name but not its value: a card number typed into a form that fell back to GET (no script
 * loaded), or pasted into a link, must never reach a log.
 */
const LOGGED_QUERY_PARAMS = new Set(['refresh', 'include_inactive', 'invoice_ref']);

/**
 * Ids that are capabilities: whoever knows one can act on it (a session id opens its payer page
 * and pays it, a slip token is what the teller scans, an attempt reference is authorized with a
 * code). A log reader gets the prefix and the last four characters, enough to correlate lines.
 */
const CAPABILITY_ID = /(^|[^A-Za-z0-9])(slp_|pa_|cs_test_|cs_live_|cs_)([A-Za-z0-9]*)([A-Za-z0-9]{4})(?![A-Za-z0-9])/g;

/**
 * The cash desk looks a slip up by its token or by the printed reference a teller types
 * (`PD-7KQ2-M9XA`, any case, spaced or not): whoever holds a reference can look the slip up
 * too, so that path segment keeps only its last two characters.
 */
const SLIP_LOOKUP = /(\/cash-slips\/)(?!slp_)([^/?]*?)([^/?]{0,2})(?=[/?]|$)/g;

function redactPath(path: string): string {
  let decoded = path;
  try {
    decoded = decodeURIComponent(path); // `%63s_test_…` routes to the same session
  } catch {
    // not valid percent-encoding: the router refuses it; redact what was sent
  }
  return decoded
    .replace(CAPABILITY_ID, (_m, before: string, prefix: string, _hidden: string, last4: string) => `${before}${prefix}***${last4}`)
    .replace(SLIP_LOOKUP, (_m, at: string, hidden: string, last2: string) => (hidden || last2 ? `${at}***${last2}` : at));
}

export function loggableUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return redactPath(url);
  const params = new URLSearchParams(url.slice(q + 1));
  const parts: string[] = [];
  for (const [key, value] of params) {
    parts.push(LOGGED_QUERY_PARAMS.has(key) ? `${encodeURIComponent(key)}=${encodeURIComponent(value)}` : `${encodeURIComponent(key)}=[redacted]`);
  }
  return `${redactPath(url.slice(0, q))}?${parts.join('&')}`;
}

/** Fastify's request serializer, with the path and query string made safe to log. */
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

/**
 * One log line per request, written when its answer is sent: method, safe path, client address,
 * status and time taken, with the request id (Fastify's own two lines, received and completed,
 * become this one). Errors the handler logged keep their own line beside it.
 */
export class OneLinePerRequest extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, req: FastifyRequest, reply: FastifyReply): void {
    const status = reply.statusCode;
    const fields = { req, res: { statusCode: status }, responseTime: Math.round(reply.elapsedTime * 10) / 10 };
    if (error) req.log.error({ ...fields, err: error }, 'request completed');
    else if (status >= 500) req.log.error(fields, 'request completed');
    else req.log.info(fields, 'request completed');
  }
}
