/**
 * The locale amounts are typed and read in. One hook for every amount field, so the language the
 * person chose can later be passed here in one place; today it is the browser's language.
 */
import { LOCALE } from './money';

export function amountLocale(): string {
  return LOCALE;
}

/** For components: the locale amount fields parse and hint in. */
export function useAmountLocale(): string {
  return amountLocale();
}
