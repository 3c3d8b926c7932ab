import { defineMessages } from '../../ui/i18n';

export default defineMessages({
  en: {
    'shell.skipToContent': 'Skip to content',
    'shell.language': 'Language',
  },
  fr: {
    'shell.skipToContent': 'Aller au contenu',
    'shell.language': 'Langue',
  },
});
