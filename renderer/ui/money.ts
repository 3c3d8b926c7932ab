/**
 * Money display for every renderer page: integer minor units, formatted by Intl in the
 * amount's own currency, exactly (the decimal string is built from digits, never a float).
 */
// globalThis: this module is also unit-tested in Node, which types no `navigator`.
export const LOCALE = (globalThis as { navigator?: { language?: string } }).navigator?.language || 'en-GH';

const moneyFormats = new Map<string, Intl.NumberFormat>();

function moneyFormat(currency: string): Intl.NumberFormat {
  let f = moneyFormats.get(currency);
  if (!f) {
    try {
      f = new Intl.NumberFormat(LOCALE, { style: 'currency', currency, currencyDisplay: 'code' });
    } catch {
      f = new Intl.NumberFormat(LOCALE, { style: 'currency', currency: 'GHS', currencyDisplay: 'code' });
    }
    moneyFormats.set(currency, f);
  }
  return f;
}

/** Decimal places of a currency, as Intl knows them (GHS 2, JPY 0, BHD 3). */
export function currencyDigits(currency: string): number {
  return moneyFormat(currency).resolvedOptions().maximumFractionDigits ?? 2;
}

/** Integer minor units → plain decimal string ("1250.00"), exact: built from digits, not floating point. */
export function minorToDecimal(amountMinor: number, currency: string): string {
  const digits = currencyDigits(currency);
  const negative = amountMinor < 0;
  const abs = String(Math.abs(Math.trunc(amountMinor))).padStart(digits + 1, '0');
  const major = digits ? `${abs.slice(0, -digits)}.${abs.slice(-digits)}` : abs;
  return negative ? `-${major}` : major;
}

/** Integer minor units → "GHS 1,250.00", with the currency's own number of decimals. */
export function formatMoney(amountMinor: number, currency: string): string {
  // Intl formats a decimal string exactly (no float rounding for very large amounts).
  return moneyFormat(currency).format(minorToDecimal(amountMinor, currency) as `${number}`);
}
