import { useMemo } from 'react';
import type { ZodType } from 'zod';
import { ApiError, apiErrorFrom, apiRequest, backofficeFetch, BACKOFFICE_API } from '../../api/client';
import { parseJsonBody } from '../../../../shared/http-envelope';
import { useSession } from '../auth/session';
import type { T } from '../../../ui/i18n';
import { errorText } from './error-text';

/**
 * The back-office API of the signed-in staff member (the sign-in cookie rides along). A 401 (token expired,
 * signed out elsewhere, account disabled) returns the user to the sign-in screen.
 */
export interface BackOfficeApi {
  /** Who the cache entries belong to: part of every query key, so one user never sees another's data. */
  readonly userId: string;
  /** With `schema` (shared/schemas/*), the answer is parsed with the shared contract. */
  get<T>(path: string, signal?: AbortSignal, schema?: ZodType<T>): Promise<T>;
  post<T>(path: string, body?: unknown, schema?: ZodType<T>): Promise<T>;
  /** Downloads a non-JSON answer (CSV) as a Blob. */
  download(path: string): Promise<Blob>;
}

export function useApi(): BackOfficeApi {
  const { session, signOut } = useSession();
  return useMemo<BackOfficeApi>(() => {
    const guard = async <T,>(p: Promise<T>): Promise<T> => {
      try {
        return await p;
      } catch (err) {
        if (err instanceof ApiError && err.status === 401) signOut();
        throw err;
      }
    };
    return {
      userId: session?.user.id ?? 'anonymous',
      get: <T,>(path: string, signal?: AbortSignal, schema?: ZodType<T>) =>
        guard(apiRequest<T>(`${BACKOFFICE_API}${path}`, { ...(signal ? { signal } : {}), ...(schema ? { schema } : {}) })),
      post: <T,>(path: string, body?: unknown, schema?: ZodType<T>) =>
        guard(apiRequest<T>(`${BACKOFFICE_API}${path}`, { method: 'POST', body: body ?? {}, ...(schema ? { schema } : {}) })),
      download: (path) =>
        guard(
          (async () => {
            const res = await backofficeFetch(`${BACKOFFICE_API}${path}`);
            if (!res.ok) throw apiErrorFrom(res.status, parseJsonBody(await res.text()));
            return res.blob();
          })(),
        ),
    };
  }, [session, signOut]);
}

/** A query string from defined values only. */
export function qs(params: Record<string, string | number | boolean | undefined | null>): string {
  const sp = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') sp.set(k, String(v));
  const s = sp.toString();
  return s ? `?${s}` : '';
}

/** A sentence for staff (never the API's developer text): see error-text.ts. */
export function errorMessage(t: T, err: unknown, field?: string): string {
  return errorText(t, err, field);
}
