/** The cash screens and the printed deposit slip. French, as a bank in Côte d’Ivoire or Senegal writes it (loaded only when a payer reads French). */
import type en from './messages-cash';

export default {
  'checkout.cash.title': 'Payer en espèces à la banque',
  'checkout.cash.step1': 'Créez votre bordereau de versement. Imprimez-le ou gardez-le sur votre téléphone.',
  'checkout.cash.step2': 'Présentez-le dans l’une des agences indiquées sur le bordereau et versez {amount} en espèces.',
  'checkout.cash.step3': 'Le caissier scanne le code. Dès que la banque confirme le versement, votre paiement est effectué.',
  'checkout.cash.creating': 'Création du bordereau…',
  'checkout.cash.create': 'Créer le bordereau de versement',
  'checkout.cash.slipTitle': 'Votre bordereau de versement',
  'checkout.cash.slipLead': 'Imprimez-le ou présentez-le sur votre téléphone dans l’une des agences indiquées avant son expiration.',
  'checkout.cash.slipLeadReplayed': 'Voici le bordereau de versement déjà émis pour ce paiement. Imprimez-le ou présentez-le sur votre téléphone dans l’une des agences indiquées avant son expiration.',
  'checkout.cash.print': 'Imprimer le bordereau',
  'checkout.slip.testMark': 'Bordereau de TEST · simulation · aucun argent réel',
  'checkout.slip.kicker': 'Bordereau de versement d’espèces',
  'checkout.slip.amount': 'Montant à verser',
  'checkout.slip.qrLabel': 'QR code du bordereau',
  'checkout.slip.reference': 'Référence du bordereau',
  'checkout.slip.referenceHelp': 'Communiquez cette référence si le code ne peut pas être scanné.',
  'checkout.slip.barcodeLabel': 'Code-barres (Code 128) du bordereau',
  'checkout.slip.payer': 'Payeur',
  'checkout.slip.validUntil': 'Valable jusqu’au',
  'checkout.slip.branches': 'Payable dans l’une de ces agences',
  'checkout.slip.branchesCount': 'Payable dans l’une de ces agences ({count, number})',
  'checkout.slip.noBanks': 'Demandez au marchand où ce bordereau peut être payé.',
  'checkout.slip.allBranches': 'Toutes les agences',
  'checkout.slip.foot': 'Versez le montant exact en espèces. Le caissier scanne le code ou saisit la référence du bordereau. Conservez le reçu de la banque jusqu’à ce que le marchand confirme le paiement. Ce bordereau n’est valable qu’une fois, et seulement jusqu’à l’heure indiquée ci-dessus.',
} satisfies Record<keyof typeof en, string>;
