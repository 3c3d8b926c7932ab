/** The API's error envelope as the client throws it (api/client.ts ApiError), by shape: this file stays free of fetch code. */
interface ApiFailure {
  status: number;
  code: string;
  message: string;
}
const isApiFailure = (e: unknown): e is ApiFailure =>
  e instanceof Error && typeof (e as Partial<ApiFailure>).status === 'number' && typeof (e as Partial<ApiFailure>).code === 'string';

/**
 * The one place the back office turns an API error into a sentence for staff. The API's
 * envelope (`code`, `message`) is written for developers ("amount_minor: must be …", "a
 * supervisor may not make this call (allowed: teller)"); staff see these sentences instead,
 * and the raw envelope stays available to developers in the network log and the API itself.
 *
 * `field`: the form field the message will be shown under. A validation error about that
 * field then reads without the field's name ("must be at least 1"), one about another field
 * names it in words.
 */
export function errorText(error: unknown, field?: string): string {
  if (!isApiFailure(error)) {
    if (error instanceof Error && error.name === 'TypeError') return 'The Paydesk server could not be reached. Check the connection and try again.';
    return 'Something went wrong. Try again; if it keeps happening, tell an administrator.';
  }
  if (error.status >= 500 && error.code !== 'SERVICE_UNAVAILABLE' && error.code !== 'PROVIDER_RAIL_UNAVAILABLE') {
    return 'Something went wrong on the server. Try again; if it keeps happening, tell an administrator.';
  }
  switch (error.code) {
    case 'INVALID_ARGUMENT':
      return invalidText(error.message, field);
    case 'UNAUTHORIZED':
      return 'Your sign-in has ended. Sign in again to continue.';
    case 'FORBIDDEN':
      if (/maker-checker|recorded a deposit/i.test(error.message)) return 'You recorded this deposit, so another supervisor must review it.';
      return 'Your role cannot do this. Ask a colleague with the right role, or an administrator.';
    case 'PASSWORD_CHANGE_REQUIRED':
      return 'Choose your own password first: an administrator set the one you signed in with.';
    case 'NOT_FOUND':
      return 'Nothing was found. It may have been removed, or the reference was mistyped.';
    case 'STATE_CONFLICT':
      return 'Someone else changed this meanwhile. The screen now shows where it stands.';
    case 'SESSION_NOT_PAYABLE':
      return 'This payment is no longer open: it was paid another way, has expired, or is waiting for review.';
    case 'PAYMENT_AMOUNT_MISMATCH':
      return 'The amount differs from the amount due. Check it and try again.';
    case 'MERCHANT_ID_REQUIRED':
      return 'Choose a merchant first.';
    case 'RATE_LIMITED':
      return `Too many attempts. Try again ${retryIn(error.message)}.`;
    case 'PAYLOAD_TOO_LARGE':
      return 'That is too much data to send at once. Send less, or split it up.';
    case 'HEADERS_TOO_LARGE':
      return 'The request was too large for the server. Sign out, sign in again, and retry.';
    case 'REQUEST_TIMEOUT':
      return 'The connection was too slow and the server stopped waiting. Check the network, then try again.';
    case 'SERVICE_UNAVAILABLE':
    case 'PROVIDER_RAIL_UNAVAILABLE':
      return 'The service is busy or restarting. Try again in a minute.';
    case 'IDEMPOTENCY_IN_PROGRESS':
    case 'IDEMPOTENCY_KEY_IN_FLIGHT':
      return 'The same request is still being processed. Wait a moment, then check the result.';
    case 'INVOICE_ALREADY_PAID':
      return 'This invoice is already paid; its lines can no longer change.';
    case 'INVOICE_CURRENCY_MISMATCH':
      return 'This invoice already has lines in another currency.';
    case 'IDEMPOTENCY_KEY_REUSED':
      return 'This request was already sent with different details. Start again.';
    case 'INVOICE_LINE_AMOUNT_INVALID':
      return 'An invoice line amount is not valid.';
    case 'REVENUE_LINE_UNKNOWN':
      return 'An invoice line uses a service code that is not active.';
    case 'DUPLICATE_LINE':
      return 'The same service code appears twice.';
    case 'PROVIDER_PAYMENT_REJECTED':
      return 'The payment provider refused this payment.';
    case 'PROVIDER_RAIL_UNSUPPORTED':
    case 'RAIL_NOT_ALLOWED':
      return 'This payment method is not available here.';
    case 'PAYMENT_ATTEMPT_PENDING':
      return 'A payment is already in progress. Wait for it to finish.';
    case 'UNSUPPORTED_MEDIA_TYPE':
      return 'The request was sent in a form the server does not accept. Reload the page and try again.';
    default:
      // A code this screen does not know yet (a newer server): still a sentence, and the code for support.
      return `This could not be done. If it keeps happening, tell an administrator (error ${error.code}).`;
  }
}

/** Words for the API's field names, as staff know them. */
const FIELD_LABELS: Record<string, string> = {
  amount_minor: 'Amount',
  branch_id: 'Branch',
  note: 'Note',
  reason: 'Reason',
  username: 'Username',
  password: 'Password',
  role: 'Role',
  merchant_id: 'Merchant',
  url: 'Webhook URL',
  name: 'Name',
  code: 'Code',
  date: 'Date',
  from: 'From date',
  to: 'To date',
  q: 'Search',
  slip_token: 'Slip token or reference',
};

export const fieldLabel = (name: string): string => FIELD_LABELS[name] ?? name.replace(/_/g, ' ').replace(/^./, (c) => c.toUpperCase());

/** "amount_minor: must be at least 1" → "Amount must be at least 1", or "Must be at least 1" under that field. */
function invalidText(message: string, field?: string): string {
  const m = /^([a-z_][a-z0-9_.[\]]*): (.+)$/i.exec(message);
  if (!m) return 'Some of what was entered is not valid. Check the form and try again.';
  const name = m[1]!.split('.').pop()!.replace(/\[\d+\]$/, '');
  const reason = humanReason(m[2]!);
  if (field && name === field) return `${reason.charAt(0).toUpperCase()}${reason.slice(1)}.`;
  return `${fieldLabel(name)} ${reason}.`;
}

function humanReason(reason: string): string {
  const r = reason.replace(/[.;].*$/, '').trim();
  if (/required/.test(r)) return 'is required';
  if (/must not be empty/.test(r)) return 'cannot be empty';
  const range = /must be (\d+) to (\d+) characters/.exec(r);
  if (range) return `must be ${range[1]} to ${range[2]} characters long`;
  const max = /at most (\d+) characters/.exec(r);
  if (max) return `is too long (at most ${max[1]} characters)`;
  if (/YYYY-MM-DD|date/.test(r)) return 'is not a valid date';
  if (/must be (a|an) (string|integer|number|boolean)/.test(r)) return 'is not valid';
  return r.startsWith('must') || r.startsWith('is') ? r : 'is not valid';
}

/** "try again in 897 s" → "in about 15 minutes". */
function retryIn(message: string): string {
  const s = Number(/(\d+)\s*s(econds?)?\b/.exec(message)?.[1] ?? NaN);
  if (!Number.isFinite(s)) return 'in a few minutes';
  if (s < 60) return 'in a minute';
  return `in about ${Math.round(s / 60)} minute${Math.round(s / 60) === 1 ? '' : 's'}`;
}
