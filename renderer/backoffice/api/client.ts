import type { ZodType } from 'zod';
import { parseJsonBody, readErrorEnvelope } from '../../../shared/http-envelope';

/** The back office talks to its own origin only (CSP connect-src 'self'). */
export const BACKOFFICE_API = '/api/backoffice/v1';

/** The API's error envelope, `{ "error": { "code", "message" } }`, as a throwable. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export interface RequestOptions<T = unknown> {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** A bearer token, for callers other than the back office page (which signs in by cookie). */
  token?: string | null;
  body?: unknown;
  signal?: AbortSignal;
  /** The shared response schema (shared/schemas/*), when the route has one: the answer is parsed with it. */
  schema?: ZodType<T>;
}

/** An error answer as a throwable, whatever its body. */
export function apiErrorFrom(status: number, data: unknown): ApiError {
  const env = readErrorEnvelope(data);
  return new ApiError(status, env.code ?? 'HTTP_ERROR', env.message ?? `the server answered ${status}`);
}

/** Same-origin fetch with the sign-in cookie and the CSRF header; the raw Response. */
export function backofficeFetch(path: string, init: { method?: string; headers?: Record<string, string>; body?: string | null; signal?: AbortSignal | null } = {}): Promise<Response> {
  // The sign-in cookie goes with every same-origin call; this header proves the call comes
  // from the back office page itself (CSRF protection, server/modules/auth/staff-cookie.ts).
  return fetch(path, {
    method: init.method ?? 'GET',
    headers: { ...init.headers, 'x-paydesk-csrf': '1' },
    body: init.body ?? null,
    signal: init.signal ?? null,
    credentials: 'same-origin',
    cache: 'no-store',
  });
}

/** JSON request to `path` (absolute, e.g. `/healthz`, or under BACKOFFICE_API). */
export async function apiRequest<T>(path: string, opts: RequestOptions<T> = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const res = await backofficeFetch(path, {
    method: opts.method ?? 'GET',
    headers,
    body: opts.body === undefined ? null : JSON.stringify(opts.body),
    signal: opts.signal ?? null,
  });
  const data = parseJsonBody(await res.text());
  if (data === undefined) throw new ApiError(res.status, 'INVALID_RESPONSE', `the server answered ${res.status} with a body that is not JSON`);
  if (!res.ok) throw apiErrorFrom(res.status, data);
  if (opts.schema) {
    const parsed = opts.schema.safeParse(data);
    if (!parsed.success) throw new ApiError(res.status, 'INVALID_RESPONSE', `the server's answer does not match the contract: ${parsed.error.issues[0]?.path.join('.') || 'body'}`);
    return parsed.data;
  }
  return data as T;
}
