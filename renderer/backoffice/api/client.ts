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

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** A bearer token, for callers other than the back office page (which signs in by cookie). */
  token?: string | null;
  body?: unknown;
  signal?: AbortSignal;
}

/** JSON request to `path` (absolute, e.g. `/healthz`, or under BACKOFFICE_API). */
export async function apiRequest<T>(path: string, opts: RequestOptions = {}): Promise<T> {
  // The sign-in cookie goes with every same-origin call; this header proves the call comes
  // from the back office page itself (CSRF protection, server/modules/backoffice/staff-cookie.ts).
  const headers: Record<string, string> = { accept: 'application/json', 'x-paydesk-csrf': '1' };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(path, {
    method: opts.method ?? 'GET',
    headers,
    body: opts.body === undefined ? null : JSON.stringify(opts.body),
    signal: opts.signal ?? null,
    credentials: 'same-origin',
    cache: 'no-store',
  });
  const text = await res.text();
  let data: unknown = null;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      throw new ApiError(res.status, 'INVALID_RESPONSE', `the server answered ${res.status} with a body that is not JSON`);
    }
  }
  if (!res.ok) {
    const err = (data as { error?: { code?: unknown; message?: unknown } } | null)?.error;
    throw new ApiError(
      res.status,
      typeof err?.code === 'string' ? err.code : 'HTTP_ERROR',
      typeof err?.message === 'string' ? err.message : `the server answered ${res.status}`,
    );
  }
  return data as T;
}
