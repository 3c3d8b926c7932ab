import { defineMessages } from '../../../ui/i18n';

/** The audit diff's values in words (the field names are in ./messages.ts). */
export default defineMessages({
  en: {
    'auditWords.minorUnits': '{value} (minor units)',
    'auditWords.bearerPayer': 'the payer (added to the amount)',
    'auditWords.bearerMerchant': 'the merchant (taken from the amount)',
    'auditWords.integrationOf': '{merchant} ({mode, select, live {live} other {test}} integration)',
  },
  fr: {
    'auditWords.minorUnits': '{value} (unités mineures)',
    'auditWords.bearerPayer': 'le payeur (ajoutés au montant)',
    'auditWords.bearerMerchant': 'le marchand (déduits du montant)',
    'auditWords.integrationOf': '{merchant} (intégration {mode, select, live {réelle} other {de test}})',
  },
});
