/**
 * The API's error envelope, `{ "error": { "code", "message", "retry_after_seconds"? } }`, read one way by
 * every front end (back office and payer pages). Each caller keeps its own fallback wording for an
 * answer that carries no envelope (a proxy page, an empty 502).
 */
export interface ErrorEnvelope {
  code: string | null;
  message: string | null;
  retryAfterSeconds: number | null;
}

/** The body text as JSON; `undefined` when it is not JSON (an empty body is `null`). */
export function parseJsonBody(text: string): unknown {
  if (!text) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The envelope's fields that are present and well typed; absent ones are null. */
export function readErrorEnvelope(data: unknown): ErrorEnvelope {
  const err = (data as { error?: { code?: unknown; message?: unknown; retry_after_seconds?: unknown } } | null | undefined)?.error;
  return {
    code: typeof err?.code === 'string' ? err.code : null,
    message: typeof err?.message === 'string' ? err.message : null,
    retryAfterSeconds: typeof err?.retry_after_seconds === 'number' ? err.retry_after_seconds : null,
  };
}
