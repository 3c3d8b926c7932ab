import { defineMessages } from '../../../ui/i18n';

/** An id behind a copy button (CopyId), and the names of the tab lists. */
export default defineMessages({
  en: {
    'copyId.copy': 'Copy',
    'copyId.copied': 'Copied',
    'copyId.copyLabel': 'Copy {what} id {id}',
    'copyId.copiedLabel': 'Copied {what} id',
    'tabs.admin': 'Administration sections',
    'tabs.finance': 'Finance sections',
    'tabs.exceptions': 'Exceptions by state',
  },
  fr: {
    'copyId.copy': 'Copier',
    'copyId.copied': 'Copié',
    'copyId.copyLabel': 'Copier l’identifiant {what} {id}',
    'copyId.copiedLabel': 'Identifiant {what} copié',
    'tabs.admin': 'Rubriques de l’administration',
    'tabs.finance': 'Rubriques de la finance',
    'tabs.exceptions': 'Anomalies par état',
  },
});
