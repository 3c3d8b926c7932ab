/** The card form (test simulation). French, as a bank in Côte d’Ivoire or Senegal writes it (loaded only when a payer reads French). */
import type en from './messages-card';

export default {
  'checkout.card.title': 'Payer par carte',
  'checkout.card.testSimulation': 'SIMULATION DE TEST',
  'checkout.card.noRealCard': 'Aucune carte réelle n’est débitée',
  'checkout.card.testCardsLead': 'Utilisez l’une de ces cartes de test, avec une date d’expiration future et un code à 3 chiffres quelconques :',
  'checkout.card.useTestCard': 'Utiliser la carte de test',
  'checkout.card.test.approved': 'Acceptée',
  'checkout.card.test.approvedMastercard': 'Acceptée (Mastercard)',
  'checkout.card.test.declined': 'Refusée',
  'checkout.card.test.insufficientFunds': 'Solde insuffisant',
  'checkout.card.test.expiredCard': 'Carte expirée',
  'checkout.card.number': 'Numéro de carte',
  'checkout.card.expiry': 'Date d’expiration',
  'checkout.card.expiryPlaceholder': 'MM / AA',
  'checkout.card.cvc': 'Code de sécurité',
  'checkout.card.cvcPlaceholder': 'CVC',
  'checkout.card.cvcHint': '3 chiffres au dos',
  'checkout.card.name': 'Nom sur la carte',
  'checkout.card.enterNumber': 'Saisissez le numéro de carte.',
  'checkout.card.enterExpiry': 'Saisissez la date d’expiration au format MM / AA.',
  'checkout.card.enterCvc': 'Saisissez le code de sécurité à 3 ou 4 chiffres.',
  'checkout.card.notCharged': '{reason} Votre carte {brand} se terminant par {last4} n’a pas été débitée.',
  'checkout.card.notChargedNoBrand': '{reason} Votre carte se terminant par {last4} n’a pas été débitée.',
  'checkout.card.processing': 'Traitement en cours…',
} satisfies Record<keyof typeof en, string>;
