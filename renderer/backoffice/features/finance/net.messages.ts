import { defineMessages } from '../../../ui/i18n';

/** Who bore a payment's fee and what reached the merchant (sessions list and detail). */
export default defineMessages({
  en: {
    'net.column': 'Net to merchant',
    'net.paidByPayer': 'paid by the payer',
    'net.paidByMerchant': 'paid by the merchant',
    'net.noFee': 'no fee',
    'net.feePaidBy': 'Fee paid by',
    'net.toMerchant': 'Net to the merchant',
    'net.notPaid': 'Not paid yet',
    'net.none': 'No fee',
    'net.payer': 'The payer (added to the amount)',
    'net.merchant': 'The merchant (taken from the amount)',
    'net.refAttempt': 'payment attempt',
    'net.refDeposit': 'deposit',
    'net.refEvent': 'event',
    'net.refSession': 'session',
  },
  fr: {
    'net.column': 'Net pour le marchand',
    'net.paidByPayer': 'payés par le payeur',
    'net.paidByMerchant': 'payés par le marchand',
    'net.noFee': 'sans frais',
    'net.feePaidBy': 'Frais payés par',
    'net.toMerchant': 'Net pour le marchand',
    'net.notPaid': 'Pas encore payé',
    'net.none': 'Sans frais',
    'net.payer': 'Le payeur (ajoutés au montant)',
    'net.merchant': 'Le marchand (déduits du montant)',
    'net.refAttempt': 'tentative de paiement',
    'net.refDeposit': 'dépôt',
    'net.refEvent': 'événement',
    'net.refSession': 'session',
  },
});
