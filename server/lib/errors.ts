/**
 * The closed set of error codes Paydesk answers with, and the HTTP status of each.
 * This table is printed in docs/errors.md; a test keeps the two in step.
 */
export const ERROR_CODES = {
  INVALID_ARGUMENT: { status: 400, meaning: 'The request failed validation; the message names the field.' },
  MERCHANT_ID_REQUIRED: { status: 400, meaning: 'A staff member not bound to a merchant (admin) must name the merchant (`merchant_id`) for this call.' },
  PROVIDER_PAYMENT_REJECTED: { status: 400, meaning: 'The payment provider refused to start the payment (for example a wallet that is not registered or is blocked). Start again with other details or another rail.' },
  PROVIDER_RAIL_UNSUPPORTED: { status: 400, meaning: 'The rail has no provider-attempt flow (`card` and `cash` are paid through their own hosted endpoints).' },
  RAIL_NOT_ALLOWED: { status: 400, meaning: 'The merchant integration does not accept this payment method, or (live mode) no real provider serves it on this deployment: sandbox providers never take live payments.' },
  UNAUTHORIZED: { status: 401, meaning: 'Missing, malformed, unknown or revoked API key (or staff token); check the key belongs to the right environment.' },
  FORBIDDEN: { status: 403, meaning: 'The staff role may not perform this call.' },
  PASSWORD_CHANGE_REQUIRED: { status: 403, meaning: 'An administrator created or reset this staff account: choose your own password with `POST /api/backoffice/v1/auth/password` before any other call.' },
  BRANCH_REQUIRED: { status: 403, meaning: 'The teller\'s account is not assigned to a branch, so the deposit would belong to no counter; an administrator assigns the account a branch before it records deposits.' },
  NOT_FOUND: { status: 404, meaning: 'No such resource for this merchant (resources of other merchants are reported the same way).' },
  IDEMPOTENCY_KEY_IN_FLIGHT: { status: 409, meaning: 'A request with this Idempotency-Key is still being processed; retry after it finishes to get its result.' },
  IDEMPOTENCY_IN_PROGRESS: { status: 409, meaning: 'Another write on the same checkout session is being processed (a double submit on hosted checkout); retry in a moment.' },
  SESSION_NOT_PAYABLE: { status: 409, meaning: 'The session is not open for payment; refresh the session before continuing.' },
  PAYMENT_AMOUNT_MISMATCH: { status: 409, meaning: 'The amount differs from the current session total for the chosen rail (or from the slip amount); refresh and use the current amount.' },
  PAYMENT_ATTEMPT_PENDING: { status: 409, meaning: 'The payment attempt is still pending with the provider (the payer already approved it and the confirmation has not arrived); do not authorize or resend again: poll its status with `refresh=1` until it is final.' },
  INVOICE_ALREADY_PAID: { status: 409, meaning: 'The invoice is fully paid: every line is remitted and none can change. On a partly paid invoice it is a per-line error (in `errors`) for a remitted line sent with another amount or name.' },
  INVOICE_CURRENCY_MISMATCH: { status: 409, meaning: 'The invoice already holds lines in another currency.' },
  STATE_CONFLICT: { status: 409, meaning: 'The resource is not in a state that allows this action (for example a deposit already reviewed, or a payment attempt that is no longer pending).' },
  REQUEST_TIMEOUT: { status: 408, meaning: 'The request (its headers and body) did not all arrive within the time limit (30 s by default); the connection is closed. Send it again over a faster connection.' },
  PAYLOAD_TOO_LARGE: { status: 413, meaning: 'The request body is larger than the documented limit (1 MiB).' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, meaning: 'The body is not application/json, application/x-www-form-urlencoded or multipart/form-data.' },
  HEADERS_TOO_LARGE: { status: 431, meaning: 'The request headers are larger than the server accepts (16 KiB); the connection is closed.' },
  IDEMPOTENCY_KEY_REUSED: { status: 422, meaning: 'The Idempotency-Key was already used with a different body; retry with the original body or a new key.' },
  INVOICE_LINE_AMOUNT_INVALID: { status: 422, meaning: 'An invoice line amount is not a positive integer number of minor units (reported per line in `errors`).' },
  REVENUE_LINE_UNKNOWN: { status: 422, meaning: 'An invoice line names a service code that is not synced or not active (reported per line in `errors`).' },
  DUPLICATE_LINE: { status: 422, meaning: 'The same code appears twice in one request (reported per line in `errors`).' },
  RATE_LIMITED: { status: 429, meaning: 'Too many requests; the body carries `retry_after_seconds` (and the `Retry-After` header); wait that long before retrying.' },
  INTERNAL_ERROR: { status: 500, meaning: 'An unexpected fault; details are logged, never returned. Always a bug.' },
  PROVIDER_RAIL_UNAVAILABLE: { status: 503, meaning: 'The payment provider for this rail is temporarily unavailable; the attempt stays pending. The body carries `retry_after_seconds`; retry then.' },
  SERVICE_UNAVAILABLE: { status: 503, meaning: 'The server is shutting down (the connection closes; retry on a new connection shortly), or it lost its database connection (a failover or restart; the body carries `retry_after_seconds`; nothing was committed, retry then, with the same Idempotency-Key for a write).' },
} as const satisfies Record<string, { status: number; meaning: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly retryAfterSeconds: number | undefined;
  constructor(code: ErrorCode, message: string, opts: { retryAfterSeconds?: number; status?: number } = {}) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.status = opts.status ?? ERROR_CODES[code].status;
    this.retryAfterSeconds = opts.retryAfterSeconds;
  }
}

export const notFound = (what: string): AppError => new AppError('NOT_FOUND', `${what} not found`);
export const invalid = (field: string, message: string): AppError => new AppError('INVALID_ARGUMENT', `${field}: ${message}`);

export function errorBody(code: string, message: string, retryAfterSeconds?: number) {
  return {
    error: retryAfterSeconds === undefined ? { code, message } : { code, message, retry_after_seconds: retryAfterSeconds },
  };
}

/** Formats a zod issue path the way a client writes it: `lines[0].code`, `customer.email`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out;
}

/** Throws at compile time when a switch misses a case of a closed union. */
export function missingCase(value: never): never {
  throw new Error(`unhandled case: ${JSON.stringify(value)}`);
}
