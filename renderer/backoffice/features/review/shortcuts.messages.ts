import { defineMessages } from '../../../ui/i18n';

/** The review queue's keyboard shortcuts and their help dialog. */
export default defineMessages({
  en: {
    'reviewKeys.next': 'Next deposit in the queue',
    'reviewKeys.previous': 'Previous deposit in the queue',
    'reviewKeys.approve': 'Approve the current deposit (asks you to confirm first)',
    'reviewKeys.reject': 'Reject the current deposit (choose a reason)',
    'reviewKeys.open': 'Open the current deposit’s details',
    'reviewKeys.when': 'On the review queue, when you are not typing in a field.',
    'reviewKeys.caption': 'Review queue shortcuts',
    'reviewKeys.yours': 'You recorded slip {slip}: another supervisor reviews it.',
  },
  fr: {
    'reviewKeys.next': 'Dépôt suivant de la file',
    'reviewKeys.previous': 'Dépôt précédent de la file',
    'reviewKeys.approve': 'Valider le dépôt sélectionné (après confirmation)',
    'reviewKeys.reject': 'Rejeter le dépôt sélectionné (choisir un motif)',
    'reviewKeys.open': 'Ouvrir le détail du dépôt sélectionné',
    'reviewKeys.when': 'Dans la file de validation, hors saisie dans un champ.',
    'reviewKeys.caption': 'Raccourcis de la file de validation',
    'reviewKeys.yours': 'Vous avez enregistré le bordereau {slip} : un autre superviseur doit le valider.',
  },
});
