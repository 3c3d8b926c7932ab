import { defineMessages } from '../../../ui/i18n';

/** The single-key shortcuts' help dialog and button, on every screen that has shortcuts. */
export default defineMessages({
  en: {
    'shortcuts.title': 'Keyboard shortcuts',
    'shortcuts.key': 'Key',
    'shortcuts.does': 'Does',
    'shortcuts.close': 'Close',
    'shortcuts.button': 'Keyboard shortcuts',
    'shortcuts.help': 'Show these shortcuts',
  },
  fr: {
    'shortcuts.title': 'Raccourcis clavier',
    'shortcuts.key': 'Touche',
    'shortcuts.does': 'Action',
    'shortcuts.close': 'Fermer',
    'shortcuts.button': 'Raccourcis clavier',
    'shortcuts.help': 'Afficher ces raccourcis',
  },
});
