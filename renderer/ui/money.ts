/**
 * Money display for every renderer page: shared/money.ts (exact, integer minor units) in the
 * user's own locale.
 */
import { currencyDigits, formatMoney as formatIn, minorToDecimal } from '../../shared/money';
import { currentLocale } from './i18n/locale';

export { currencyDigits, minorToDecimal };

/** Integer minor units → "GHS 1,250.00", with the currency's own number of decimals. */
export function formatMoney(amountMinor: number, currency: string): string {
  return formatIn(amountMinor, currency, currentLocale());
}
