import type { Rail } from '../../shared/schemas/common';

import { currentLocale } from '../ui/i18n';
import { currencyDigits, formatMoney, minorToDecimal } from '../ui/money';

export { currencyDigits, formatMoney, minorToDecimal };

/** A time the payer reads names its zone ("12 Jun 2026, 14:05 GMT"): the payer's device's. dateStyle/timeStyle cannot take timeZoneName. */
export function formatDateTime(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime())
    ? iso
    : new Intl.DateTimeFormat(currentLocale(), { year: 'numeric', month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit', timeZoneName: 'short' }).format(d);
}

/** "4:05" or "1:02:09" for a countdown. */
export function formatClock(totalSeconds: number): string {
  const s = Math.max(0, Math.floor(totalSeconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = String(s % 60).padStart(2, '0');
  return h ? `${h}:${String(m).padStart(2, '0')}:${sec}` : `${m}:${sec}`;
}

/** "in 14 minutes", "in 2 hours" for an expiry that is further away. */
export function formatRelative(seconds: number): string {
  const rtf = new Intl.RelativeTimeFormat(currentLocale(), { numeric: 'auto' });
  if (seconds < 90) return rtf.format(Math.max(0, Math.round(seconds)), 'second');
  if (seconds < 90 * 60) return rtf.format(Math.round(seconds / 60), 'minute');
  if (seconds < 36 * 3600) return rtf.format(Math.round(seconds / 3600), 'hour');
  return rtf.format(Math.round(seconds / 86400), 'day');
}

/** The payer reads the long wording ("Cash at a bank branch"): shared/labels.ts. */
export { RAIL_PAYER_LABELS as RAIL_LABELS, OPERATOR_LABELS } from '../../shared/labels';

export const RAIL_HINTS: Record<Rail, string> = {
  momo: 'MTN, Telecel or AirtelTigo: approve on your phone',
  card: 'Visa or Mastercard',
  bank_transfer: 'Transfer from your bank app or at the counter',
  cash: 'Print a deposit slip and pay at any listed branch',
};

/** Sandbox decline reasons → words for the payer. Unknown codes fall back to a generic line. */
export function describeDecline(reason: string | null | undefined): string {
  switch (reason) {
    case 'insufficient_funds':
      return 'The account does not have enough funds for this payment.';
    case 'invalid_code':
    case 'wrong_code':
    case 'invalid_otp':
      return 'The verification code was not correct.';
    case 'expired':
    case 'prompt_expired':
    case 'timeout':
      return 'The approval request expired before it was confirmed.';
    case 'card_declined':
    case 'declined':
    case 'do_not_honor':
      return 'The payment was declined.';
    case 'payer_declined':
    case 'payer_rejected':
    case 'rejected_by_payer':
    case 'cancelled':
      return 'The payment was rejected on the phone.';
    case 'expired_card':
      return 'The card has expired.';
    case 'incorrect_cvc':
      return 'The security code was not correct.';
    default:
      return reason ? `The payment was declined (${reason.replace(/_/g, ' ')}).` : 'The payment was declined.';
  }
}

/** Only http(s) return links are rendered: a merchant-supplied URL must not become a script link. */
export function safeHttpUrl(url: string | null | undefined): string | null {
  if (!url) return null;
  try {
    const u = new URL(url, window.location.href);
    return u.protocol === 'https:' || u.protocol === 'http:' ? u.toString() : null;
  } catch {
    return null;
  }
}
