export { defineMessages, mergeCatalogs, pseudoMessage, PSEUDO_CLOSE, PSEUDO_OPEN, type Catalog } from './catalog';
export {
  asLanguage,
  currentLanguage,
  currentLocale,
  formattingLocale,
  LANGUAGE_NAMES,
  LANGUAGES,
  pickLanguage,
  type DisplayLanguage,
  type Language,
} from './locale';
export { I18nProvider, LanguageSwitch, useLanguage, useT, type T } from './provider';
