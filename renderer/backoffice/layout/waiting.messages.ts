import { defineMessages } from '../../ui/i18n';

/** What waits for the signed-in user, in the menu and on the landing page. */
export default defineMessages({
  en: {
    'waiting.deposits': '{count, plural, one {# deposit} other {# deposits}} waiting for review',
    'waiting.exceptions': '{count, plural, one {# open exception} other {# open exceptions}}',
  },
  fr: {
    'waiting.deposits': '{count, plural, one {# dépôt} other {# dépôts}} en attente de validation',
    'waiting.exceptions': '{count, plural, one {# anomalie ouverte} other {# anomalies ouvertes}}',
  },
});
