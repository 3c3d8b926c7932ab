import { useCallback } from 'react';
import { useT, type T } from '../../../ui/i18n';

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
 *
 * `t`: the messages of the current language (useT() in a component); the sentences are in the
 * staff member's language while the API's own text stays English.
 */
export function errorText(t: T, error: unknown, field?: string): string {
  if (!isApiFailure(error)) {
    if (error instanceof Error && error.name === 'TypeError') return t('common.error.unreachable');
    return t('common.error.unknown');
  }
  if (error.status >= 500 && error.code !== 'SERVICE_UNAVAILABLE' && error.code !== 'PROVIDER_RAIL_UNAVAILABLE') {
    return t('common.error.server');
  }
  switch (error.code) {
    case 'INVALID_ARGUMENT':
      return invalidText(t, error.message, field);
    case 'UNAUTHORIZED':
      return t('common.error.unauthorized');
    case 'FORBIDDEN':
      if (/maker-checker|recorded a deposit/i.test(error.message)) return t('common.error.makerChecker');
      if (/own count/i.test(error.message)) return t('common.error.ownCount');
      return t('common.error.forbidden');
    case 'BRANCH_REQUIRED':
      return t('common.error.branchRequired');
    case 'PASSWORD_CHANGE_REQUIRED':
      return t('common.error.passwordChangeRequired');
    case 'NOT_FOUND':
      return t('common.error.notFound');
    case 'STATE_CONFLICT':
      return t('common.error.stateConflict');
    case 'SESSION_NOT_PAYABLE':
      return t('common.error.sessionNotPayable');
    case 'PAYMENT_AMOUNT_MISMATCH':
      return t('common.error.amountMismatch');
    case 'MERCHANT_ID_REQUIRED':
      return t('common.error.merchantRequired');
    case 'RATE_LIMITED':
      return retryText(t, error.message);
    case 'PAYLOAD_TOO_LARGE':
      return t('common.error.payloadTooLarge');
    case 'HEADERS_TOO_LARGE':
      return t('common.error.headersTooLarge');
    case 'REQUEST_TIMEOUT':
      return t('common.error.timeout');
    case 'SERVICE_UNAVAILABLE':
    case 'PROVIDER_RAIL_UNAVAILABLE':
      return t('common.error.unavailable');
    case 'IDEMPOTENCY_IN_PROGRESS':
    case 'IDEMPOTENCY_KEY_IN_FLIGHT':
      return t('common.error.inProgress');
    case 'INVOICE_ALREADY_PAID':
      return t('common.error.invoicePaid');
    case 'INVOICE_CURRENCY_MISMATCH':
      return t('common.error.invoiceCurrency');
    case 'IDEMPOTENCY_KEY_REUSED':
      return t('common.error.keyReused');
    case 'INVOICE_LINE_AMOUNT_INVALID':
      return t('common.error.lineAmount');
    case 'REVENUE_LINE_UNKNOWN':
      return t('common.error.revenueLineUnknown');
    case 'DUPLICATE_LINE':
      return t('common.error.duplicateLine');
    case 'PROVIDER_PAYMENT_REJECTED':
      return t('common.error.providerRejected');
    case 'PROVIDER_RAIL_UNSUPPORTED':
    case 'RAIL_NOT_ALLOWED':
      return t('common.error.railNotAllowed');
    case 'PAYMENT_ATTEMPT_PENDING':
      return t('common.error.attemptPending');
    case 'UNSUPPORTED_MEDIA_TYPE':
      return t('common.error.mediaType');
    default:
      // A code this screen does not know yet (a newer server): still a sentence, and the code for support.
      return t('common.error.other', { code: error.code });
  }
}

/** Words for the API's field names, as staff know them. */
function fieldLabel(t: T, name: string): string {
  switch (name) {
    case 'amount_minor':
      return t('common.field.amount');
    case 'branch_id':
      return t('common.field.branch');
    case 'note':
      return t('common.field.note');
    case 'reason':
      return t('common.field.reason');
    case 'username':
      return t('common.field.username');
    case 'password':
      return t('common.field.password');
    case 'role':
      return t('common.field.role');
    case 'merchant_id':
      return t('common.field.merchant');
    case 'url':
      return t('common.field.url');
    case 'name':
      return t('common.field.name');
    case 'code':
      return t('common.field.code');
    case 'date':
      return t('common.field.date');
    case 'from':
      return t('common.field.from');
    case 'to':
      return t('common.field.to');
    case 'q':
      return t('common.field.search');
    case 'slip_token':
      return t('common.field.slip');
    case 'the dates':
      return t('common.field.dates');
    default:
      // A field this screen has no words for: its API name, readable (the same in every language).
      return name.replace(/_/g, ' ').replace(/^./, (c) => c.toUpperCase());
  }
}

type Reason = 'required' | 'empty' | 'length' | 'tooLong' | 'atLeast' | 'atMost' | 'date' | 'notValid';

/** The server's reason ("must be 8 to 200 characters") as one of the reasons staff read, with its numbers. */
function readReason(reason: string): { kind: Reason; min?: number; max?: number } {
  const r = reason.replace(/[.;].*$/, '').trim();
  if (/required/.test(r)) return { kind: 'required' };
  if (/must not be empty/.test(r)) return { kind: 'empty' };
  const range = /must be (\d+) to (\d+) characters/.exec(r);
  if (range) return { kind: 'length', min: Number(range[1]), max: Number(range[2]) };
  const max = /at most (\d+) characters/.exec(r);
  if (max) return { kind: 'tooLong', max: Number(max[1]) };
  if (/YYYY-MM-DD|date/.test(r)) return { kind: 'date' };
  const least = /(?:at least|>=)\s*(-?\d+)/.exec(r);
  if (least) return { kind: 'atLeast', min: Number(least[1]) };
  const most = /(?:at most|<=)\s*(-?\d+)/.exec(r);
  if (most) return { kind: 'atMost', max: Number(most[1]) };
  return { kind: 'notValid' };
}

/** "amount_minor: must be at least 1" → "Amount must be at least 1.", or "Must be at least 1." under that field. */
function invalidText(t: T, message: string, field?: string): string {
  const m = /^([a-z_][a-z0-9_.[\]]*): (.+)$/i.exec(message);
  if (!m) return t('common.error.invalidForm');
  const name = m[1]!.split('.').pop()!.replace(/\[\d+\]$/, '');
  const { kind, min, max } = readReason(m[2]!);
  if (field && name === field) {
    switch (kind) {
      case 'required':
        return t('common.invalidHere.required');
      case 'empty':
        return t('common.invalidHere.empty');
      case 'length':
        return t('common.invalidHere.length', { min, max });
      case 'tooLong':
        return t('common.invalidHere.tooLong', { max });
      case 'atLeast':
        return t('common.invalidHere.atLeast', { min });
      case 'atMost':
        return t('common.invalidHere.atMost', { max });
      case 'date':
        return t('common.invalidHere.date');
      default:
        return t('common.invalidHere.notValid');
    }
  }
  const label = fieldLabel(t, name);
  switch (kind) {
    case 'required':
      return t('common.invalid.required', { field: label });
    case 'empty':
      return t('common.invalid.empty', { field: label });
    case 'length':
      return t('common.invalid.length', { field: label, min, max });
    case 'tooLong':
      return t('common.invalid.tooLong', { field: label, max });
    case 'atLeast':
      return t('common.invalid.atLeast', { field: label, min });
    case 'atMost':
      return t('common.invalid.atMost', { field: label, max });
    case 'date':
      return t('common.invalid.date', { field: label });
    default:
      return t('common.invalid.notValid', { field: label });
  }
}

/** "try again in 897 s" → "Try again in about 15 minutes." */
function retryText(t: T, message: string): string {
  const s = Number(/(\d+)\s*s(econds?)?\b/.exec(message)?.[1] ?? NaN);
  if (!Number.isFinite(s)) return t('common.error.rateLimitedLater');
  if (s < 60) return t('common.error.rateLimitedSoon');
  return t('common.error.rateLimited', { minutes: Math.round(s / 60) });
}

/** `const errorText = useErrorText(); … errorText(err, 'amount_minor')`: errorText in the current language. */
export function useErrorText(): (error: unknown, field?: string) => string {
  const t = useT();
  return useCallback((error: unknown, field?: string) => errorText(t, error, field), [t]);
}
