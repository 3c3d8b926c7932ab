/**
 * The locale amounts are typed and read in: the language the person reads Paydesk in, with the
 * browser's region when it speaks that language (renderer/ui/i18n/locale.ts).
 */
import { currentLocale } from './i18n/locale';

function amountLocale(): string {
  return currentLocale();
}

/** For components: the locale amount fields parse and hint in. */
export function useAmountLocale(): string {
  return amountLocale();
}
