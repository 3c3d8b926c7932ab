import { defineMessages } from '../../../ui/i18n';

export default defineMessages({
  en: {
    'momoCountries.title': 'Mobile Money countries',
    'momoCountries.hint': 'A payer picks from the countries of the session’s currency that this integration serves. A session in a currency with no country served is not offered Mobile Money.',
    'momoCountries.every': 'Every country of the session’s currency',
    'momoCountries.only': 'Only these countries',
    'momoCountries.save': 'Save countries',
    'momoCountries.saved': 'Mobile Money countries saved.',
  },
  fr: {
    'momoCountries.title': 'Pays Mobile Money',
    'momoCountries.hint': 'Le payeur choisit parmi les pays de la devise de la session que cette intégration dessert. Une session dans une devise sans pays desservi ne propose pas le Mobile Money.',
    'momoCountries.every': 'Tous les pays de la devise de la session',
    'momoCountries.only': 'Seulement ces pays',
    'momoCountries.save': 'Enregistrer les pays',
    'momoCountries.saved': 'Pays Mobile Money enregistrés.',
  },
});
