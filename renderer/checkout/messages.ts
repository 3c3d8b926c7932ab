/**
 * The payer pages' messages in English and French: one file per screen group, listed here once.
 * The catalogue test (test/unit/i18n-catalogs.test.ts) checks both languages carry every id with
 * the same arguments, and that every id a component asks for exists.
 */
import { defineMessages, mergeCatalogs } from '../ui/i18n';

const page = defineMessages({
  en: {
    'checkout.skipToPayment': 'Skip to payment',
    'checkout.language': 'Language',
  },
  fr: {
    'checkout.skipToPayment': 'Aller au paiement',
    'checkout.language': 'Langue',
  },
});

export const checkoutCatalog = mergeCatalogs([page]);
