/**
 * Errors that mean "the database connection was lost or could not be had", not "this request is
 * wrong" or "Paydesk has a bug": a failover, a restart, `pg_terminate_backend`, a refused or timed
 * out connect, or a statement cut by the server's timeouts. The central error handler
 * (server/http/errors.ts) answers them 503 SERVICE_UNAVAILABLE with `retry_after_seconds`: the
 * transaction rolled back, or (cut during COMMIT) committed whole unacknowledged, so a retry with
 * the same Idempotency-Key for a write is right either way. docs/deployment.md "When the database fails over".
 */

/** SQLSTATEs: class 08 (connection exception) is matched by prefix. */
const SQLSTATES = new Set([
  '57P01', // admin_shutdown: pg_terminate_backend, a fast shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now: starting up, shutting down, a standby being promoted
  '57014', // query_canceled: statement_timeout
  '25P03', // idle_in_transaction_session_timeout
  '53300', // too_many_connections
  // A serialization failure or deadlock reaches the handler only once server/db/postgres.ts has
  // retried the transaction MAX_TRANSACTION_ATTEMPTS times: contention, not a bad request, and the
  // transaction rolled back, so "retry shortly" is the true answer.
  '40001', // serialization_failure
  '40P01', // deadlock_detected
]);
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
// node-postgres reports a socket that ended, a client that broke earlier and a pool connect timeout
// as plain Errors with these messages (no code).
const CONNECT_TIMEOUT = /^(?:timeout exceeded when trying to connect|Connection terminated due to connection timeout)/;
const LOST = /^(?:Connection terminated|Client has encountered a connection error|Client was closed and is not queryable)/;

export const DATABASE_RETRY_AFTER_SECONDS = 1;

export function isDatabaseUnavailable(err: unknown): boolean {
  for (let e = err as { code?: unknown; message?: unknown; cause?: unknown } | null | undefined, depth = 0; e && depth < 4; e = e.cause as typeof e, depth++) {
    const code = typeof e.code === 'string' ? e.code : '';
    if (code.startsWith('08') && code.length === 5) return true;
    if (SQLSTATES.has(code) || SOCKET_CODES.has(code)) return true;
    if (typeof e.message === 'string' && (LOST.test(e.message) || CONNECT_TIMEOUT.test(e.message))) return true;
  }
  return false;
}

/** The connection itself is gone: its backend was terminated or crashed, or its socket closed. */
const DEAD_CONNECTION_CODES = new Set(['57P01', '57P02', 'ECONNRESET', 'EPIPE']);

/**
 * A pooled connection that died while it sat idle (a failover, a restart, `pg_terminate_backend`)
 * and that the pool had not yet noticed: the pool drops it once it is released with the error
 * (server/db/postgres.ts starts the transaction again on the next one). Not a connect that
 * failed or timed out (a new connection would fail the same way, after the same wait), nor a
 * statement cut by a timeout.
 */
export function isDeadConnectionError(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null;
  const code = typeof e?.code === 'string' ? e.code : '';
  if (DEAD_CONNECTION_CODES.has(code) || (code.startsWith('08') && code.length === 5)) return true;
  return typeof e?.message === 'string' && LOST.test(e.message) && !CONNECT_TIMEOUT.test(e.message);
}
