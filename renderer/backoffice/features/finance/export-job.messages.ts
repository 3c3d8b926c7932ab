import { defineMessages } from '../../../ui/i18n';

/** The reconciliation export run as a job: progress, cancel and outcome. */
export default defineMessages({
  en: {
    'exportJob.exporting': 'Exporting…',
    'exportJob.cancel': 'Cancel export',
    'exportJob.cancelling': 'Cancelling…',
    'exportJob.progress': 'Exporting: {count, plural, one {# payment} other {# payments}} written so far…',
    'exportJob.cancelled': 'Export cancelled after {count, plural, one {# payment} other {# payments}}. No file was made.',
    'exportJob.failed': 'The export failed.',
  },
  fr: {
    'exportJob.exporting': 'Export en cours…',
    'exportJob.cancel': 'Annuler l’export',
    'exportJob.cancelling': 'Annulation…',
    'exportJob.progress': 'Export en cours : {count, plural, one {# paiement écrit} other {# paiements écrits}} jusqu’ici…',
    'exportJob.cancelled': 'Export annulé après {count, plural, one {# paiement} other {# paiements}}. Aucun fichier n’a été créé.',
    'exportJob.failed': 'L’export a échoué.',
  },
});
