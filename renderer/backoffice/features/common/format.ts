/** Display formats for the back office: Intl only, in the amount's own currency. */
import { currentLocale } from '../../../ui/i18n';
import { currencyDigits, formatMoney, minorToDecimal } from '../../../ui/money';

export { currencyDigits, formatMoney, minorToDecimal };

/** Typed amounts: one locale-aware parser for every amount field (renderer/ui/amount.ts). */
export { amountPlaceholder, formatAmountInput, parseAmount } from '../../../ui/amount';
export { useAmountLocale } from '../../../ui/amount-locale';

const formatters = new Map<string, Intl.DateTimeFormat>();

/** Intl formatters are costly to make: one per locale and style, made on first use. */
function dateTimeFormat(seconds: boolean): Intl.DateTimeFormat {
  const key = `${currentLocale()}|${seconds ? 's' : 'm'}`;
  let f = formatters.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat(currentLocale(), { dateStyle: 'medium', timeStyle: seconds ? 'medium' : 'short' });
    formatters.set(key, f);
  }
  return f;
}

export function formatDateTime(iso: string | null | undefined, opts: { seconds?: boolean } = {}): string {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return dateTimeFormat(!!opts.seconds).format(d);
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

/** Staff read the short wording ("Cash"): shared/labels.ts. */
export { railLabel } from '../../../../shared/labels';

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
