/** Display formats for the back office: Intl only, in the amount's own currency. */
import { currentLocale } from '../../../ui/i18n';
import { currencyDigits, formatMoney, minorToDecimal } from '../../../ui/money';

export { currencyDigits, formatMoney, minorToDecimal };

/** Typed amounts: one locale-aware parser for every amount field (renderer/ui/amount.ts). */
export { amountPlaceholder, formatAmountInput, parseAmount } from '../../../ui/amount';
export { useAmountLocale } from '../../../ui/amount-locale';

const formatters = new Map<string, Intl.DateTimeFormat>();

/**
 * Every time staff read names its zone ("12 Jun 2026, 14:05 GMT", "12 juin 2026, 14:05 UTC"):
 * the screen's own zone, which need not be the instance's (GET /me `time_zone`, on the account
 * page). Stored times and CSVs are UTC. dateStyle/timeStyle cannot take timeZoneName, so the
 * parts are named. Intl formatters are costly to make: one per locale and style, made on first use.
 */
function dateTimeFormat(style: 'minutes' | 'seconds' | 'time'): Intl.DateTimeFormat {
  const key = `${currentLocale()}|${style}`;
  let f = formatters.get(key);
  if (!f) {
    const day: Intl.DateTimeFormatOptions = style === 'time' ? {} : { year: 'numeric', month: 'short', day: 'numeric' };
    f = new Intl.DateTimeFormat(currentLocale(), { ...day, hour: 'numeric', minute: '2-digit', ...(style === 'seconds' ? { second: '2-digit' } : {}), timeZoneName: 'short' });
    formatters.set(key, f);
  }
  return f;
}

/** "Africa/Accra (GMT)", "Africa/Lagos (GMT+1)": an IANA zone with its offset now; the name alone if this browser does not know it. */
export function formatZone(zone: string, at = new Date()): string {
  try {
    const offset = new Intl.DateTimeFormat('en', { timeZone: zone, timeZoneName: 'shortOffset' }).formatToParts(at).find((p) => p.type === 'timeZoneName')?.value;
    return offset ? `${zone} (${offset})` : zone;
  } catch {
    return zone;
  }
}

/** A time of day with its zone ("14:05 GMT"), for a list of one day's entries. */
export function formatTime(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : dateTimeFormat('time').format(d);
}

export function formatDateTime(iso: string | null | undefined, opts: { seconds?: boolean } = {}): string {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return dateTimeFormat(opts.seconds ? 'seconds' : 'minutes').format(d);
}

/**
 * A calendar day (`2026-06-01`) written out in the language staff read Paydesk in ("Monday 1 June
 * 2026", "lundi 1 juin 2026"): the day itself, whatever the zone of the screen reading it.
 */
export function formatDay(day: string): string {
  const [y, m, d] = day.split('-').map(Number);
  const at = Date.UTC(y!, (m ?? 1) - 1, d ?? 1, 12);
  if (Number.isNaN(at)) return day;
  return new Intl.DateTimeFormat(currentLocale(), { dateStyle: 'full', timeZone: 'UTC' }).format(at);
}

/** A time of day in a given zone (the instance's, for a cash-up), in the staff member's language: "14:05", "2:05 PM". */
export function formatTimeIn(iso: string, zone: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const opts: Intl.DateTimeFormatOptions = { hour: '2-digit', minute: '2-digit' };
  try {
    return new Intl.DateTimeFormat(currentLocale(), { ...opts, timeZone: zone }).format(d);
  } catch {
    return new Intl.DateTimeFormat(currentLocale(), opts).format(d); // a zone this browser does not know
  }
}

/** "in 3 hours", "5 minutes ago". */
export function formatRelative(iso: string, now = Date.now()): string {
  const seconds = (new Date(iso).getTime() - now) / 1000;
  const rtf = new Intl.RelativeTimeFormat(currentLocale(), { numeric: 'auto' });
  const abs = Math.abs(seconds);
  if (abs < 90) return rtf.format(Math.round(seconds), 'second');
  if (abs < 90 * 60) return rtf.format(Math.round(seconds / 60), 'minute');
  if (abs < 36 * 3600) return rtf.format(Math.round(seconds / 3600), 'hour');
  return rtf.format(Math.round(seconds / 86400), 'day');
}

/** `2026-06-01` for a date input, in local time. */
export function dateInputValue(d: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}`;
}

/** Start of a local calendar day (date input value) as an ISO instant. */
export function dayStartIso(day: string): string | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) return undefined;
  const d = new Date(`${day}T00:00:00`);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
}

/** Start of the day after (exclusive end of a range that includes `day`). */
export function dayEndIso(day: string): string | undefined {
  const start = dayStartIso(day);
  if (!start) return undefined;
  const d = new Date(start);
  d.setDate(d.getDate() + 1);
  return d.toISOString();
}
