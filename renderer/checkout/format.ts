import type { Rail } from '../../shared/schemas/common';

import { momoCountry, type MomoCountry } from '../../shared/countries';
import { currentLocale, type T } from '../ui/i18n';
import { formatMoney, minorToDecimal } from '../ui/money';

export { formatMoney, minorToDecimal };

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

/**
 * The payer's words for rails, networks and countries, as message ids (literal, so the catalogue
 * test sees them). shared/labels.ts and shared/countries.ts keep the English the server's CSVs use.
 */
const RAIL_LABEL_IDS: Readonly<Record<Rail, string>> = {
  momo: 'checkout.rail.momo',
  card: 'checkout.rail.card',
  bank_transfer: 'checkout.rail.bankTransfer',
  cash: 'checkout.rail.cash',
};

export const RAIL_HINT_IDS: Readonly<Record<Exclude<Rail, 'momo'>, string>> = {
  card: 'checkout.rail.cardHint',
  bank_transfer: 'checkout.rail.bankTransferHint',
  cash: 'checkout.rail.cashHint',
};

/** The rail as the payer reads it ("Cash at a bank branch"). */
export const railLabel = (t: T, rail: Rail): string => t(RAIL_LABEL_IDS[rail]);

const NETWORK_IDS: Readonly<Record<string, string>> = {
  mtn: 'checkout.network.mtn',
  telecel: 'checkout.network.telecel',
  airteltigo: 'checkout.network.airteltigo',
  orange: 'checkout.network.orange',
  moov: 'checkout.network.moov',
  wave: 'checkout.network.wave',
  free: 'checkout.network.free',
  mpesa: 'checkout.network.mpesa',
  airtel: 'checkout.network.airtel',
};

/** "MTN MoMo" for a network code; "Mobile Money" when unknown. */
export const networkName = (t: T, code: string): string => t(NETWORK_IDS[code] ?? 'checkout.rail.momo');

const COUNTRY_IDS: Readonly<Record<string, string>> = {
  GH: 'checkout.country.GH',
  CI: 'checkout.country.CI',
  SN: 'checkout.country.SN',
  KE: 'checkout.country.KE',
};

const PHONE_FORMAT_IDS: Readonly<Record<string, string>> = {
  GH: 'checkout.phoneFormat.GH',
  CI: 'checkout.phoneFormat.CI',
  SN: 'checkout.phoneFormat.SN',
  KE: 'checkout.phoneFormat.KE',
};

/**
 * The Mobile Money option's hint: the networks of the session's countries (shared/countries.ts),
 * listed in the payer's language ("Orange Money, Wave ou Free Money : validez sur le téléphone").
 */
export function momoHint(t: T, countryCodes: readonly string[]): string {
  const codes = [...new Set(countryCodes.flatMap((code) => momoCountry(code)?.networks.map((n) => n.value) ?? []))];
  if (!codes.length) return t('checkout.rail.momoHintAny');
  const networks = new Intl.ListFormat(currentLocale(), { style: 'long', type: 'disjunction' }).format(codes.map((code) => networkName(t, code)));
  return t('checkout.rail.momoHint', { networks });
}

/** A Mobile Money country's name in the payer's language (its English name when unknown). */
export const countryName = (t: T, country: MomoCountry): string => {
  const id = COUNTRY_IDS[country.code];
  return id ? t(id) : country.name;
};

/** How a number is written in that country ("0X XX XX XX XX (10 digits) or 225XXXXXXXXXX"). */
export const phoneFormat = (t: T, country: MomoCountry): string => {
  const id = PHONE_FORMAT_IDS[country.code];
  return id ? t(id) : country.phoneFormat;
};

/** Sandbox decline reasons → words for the payer. Unknown codes fall back to a generic line. */
export function describeDecline(t: T, reason: string | null | undefined): string {
  switch (reason) {
    case 'insufficient_funds':
      return t('checkout.decline.insufficientFunds');
    case 'invalid_code':
    case 'wrong_code':
    case 'invalid_otp':
      return t('checkout.decline.wrongCode');
    case 'expired':
    case 'prompt_expired':
    case 'timeout':
      return t('checkout.decline.promptExpired');
    case 'payer_declined':
    case 'payer_rejected':
    case 'rejected_by_payer':
    case 'cancelled':
      return t('checkout.decline.rejectedOnPhone');
    case 'expired_card':
      return t('checkout.decline.expiredCard');
    case 'incorrect_cvc':
      return t('checkout.decline.wrongCvc');
    default:
      // card_declined, do_not_honor and any code without a sentence of its own.
      return t('checkout.decline.declined');
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
