export { defineMessages, mergeCatalogs, pseudoMessage, type Catalog } from './catalog';
export {
  currentLocale,
  type Language,
} from './locale';
export { I18nProvider, LanguageSwitch, useT, type T } from './provider';
