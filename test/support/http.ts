import type { FastifyInstance, LightMyRequestResponse } from 'fastify';

/** Flattens a JSON-like value into form fields the way browsers and qs write them: `customer[name]`, `lines[0][code]`. */
function formFields(value: unknown, prefix = ''): Array<[string, string]> {
  if (value === undefined) return [];
  if (value === null || typeof value !== 'object') return [[prefix, String(value)]];
  const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value);
  return entries.flatMap(([k, v]) => formFields(v, prefix ? `${prefix}[${k}]` : k));
}

/** `application/x-www-form-urlencoded` body for a JSON-like value. */
export function urlencoded(value: unknown): { payload: string; headers: Record<string, string> } {
  const payload = formFields(value)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
    .join('&');
  return { payload, headers: { 'content-type': 'application/x-www-form-urlencoded' } };
}

/** `multipart/form-data` body (text fields only) for a JSON-like value. */
export function multipart(value: unknown, boundary = '----paydesk-test-boundary'): { payload: Buffer; headers: Record<string, string> } {
  const parts = formFields(value).map(
    ([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`,
  );
  return {
    payload: Buffer.from(`${parts.join('')}--${boundary}--\r\n`),
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
  };
}

export type Encoding = 'json' | 'urlencoded' | 'multipart';
export const ENCODINGS: readonly Encoding[] = ['json', 'urlencoded', 'multipart'];

/** POSTs `body` in the given encoding through `inject`. */
export function post(
  app: FastifyInstance,
  url: string,
  body: unknown,
  opts: { key?: string; encoding?: Encoding; headers?: Record<string, string> } = {},
): Promise<LightMyRequestResponse> {
  const auth: Record<string, string> = opts.key ? { authorization: `Bearer ${opts.key}` } : {};
  const encoding = opts.encoding ?? 'json';
  if (encoding === 'json') {
    return app.inject({ method: 'POST', url, headers: { ...auth, ...opts.headers }, payload: body as object });
  }
  const encoded = encoding === 'urlencoded' ? urlencoded(body) : multipart(body);
  return app.inject({ method: 'POST', url, headers: { ...auth, ...encoded.headers, ...opts.headers }, payload: encoded.payload });
}

/** GET through `inject` with the merchant key. */
export function get(app: FastifyInstance, url: string, key?: string): Promise<LightMyRequestResponse> {
  return app.inject({ method: 'GET', url, headers: key ? { authorization: `Bearer ${key}` } : {} });
}

/**
 * Asserts the error envelope shape and returns its `error` without `request_id`, after checking
 * that one is there and is the id of the `X-Request-Id` response header.
 */
export function envelope(res: LightMyRequestResponse): { code: string; message: string; retry_after_seconds?: number } {
  const body = res.json() as { error?: { code: string; message: string; retry_after_seconds?: number; request_id?: string } };
  if (!body.error || typeof body.error.code !== 'string' || typeof body.error.message !== 'string') {
    throw new Error(`not an error envelope (${res.statusCode}): ${res.body}`);
  }
  const extra = Object.keys(body).filter((k) => k !== 'error');
  if (extra.length) throw new Error(`error envelope has extra fields ${extra.join(', ')}`);
  const { request_id: requestId, ...error } = body.error;
  if (!requestId || requestId !== res.headers['x-request-id']) throw new Error(`error.request_id ${requestId} is not the X-Request-Id header ${String(res.headers['x-request-id'])}`);
  return error;
}
