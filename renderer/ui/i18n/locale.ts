/**
 * The language a person reads Paydesk in, and the locale numbers, money and dates are written in.
 *
 * Two languages ship: English and French. The language comes from, in order: a `?lang=` in the
 * page address, the choice saved on this device (payer pages) or on the staff account (back
 * office), then the browser's languages (what it sends as `Accept-Language`). The formatting
 * locale keeps the browser's region when it speaks the chosen language (`fr-CI`, `en-KE`);
 * otherwise `en-GH` or `fr-FR`.
 *
 * `pseudo` is a test language: English text with every letter accented and each message
 * bracketed, so a screen showing text that is not a message stands out (test/e2e/languages.spec.ts).
 */
export type Language = 'en' | 'fr';
export type DisplayLanguage = Language | 'pseudo';

export const LANGUAGES: readonly Language[] = ['en', 'fr'];

/** Each language named in itself, as a language menu shows it. */
export const LANGUAGE_NAMES: Record<Language, string> = { en: 'English', fr: 'Français' };

const DEFAULT_LOCALE: Record<Language, string> = { en: 'en-GH', fr: 'fr-FR' };
const STORAGE_KEY = 'paydesk.language';

interface NavigatorLike {
  languages?: readonly string[];
  language?: string;
}

function browserLanguages(): readonly string[] {
  const nav = (globalThis as { navigator?: NavigatorLike }).navigator;
  if (nav?.languages?.length) return nav.languages;
  return nav?.language ? [nav.language] : [];
}

/** `fr-CI` → `fr`; anything that is not a shipped language → null. */
function asLanguage(tag: string | null | undefined): Language | null {
  if (!tag) return null;
  const base = tag.trim().toLowerCase().split(/[-_]/)[0] ?? '';
  return (LANGUAGES as readonly string[]).includes(base) ? (base as Language) : null;
}

/** The first of the preferred languages Paydesk speaks; English when none. */
function pickLanguage(preferred: readonly string[] = browserLanguages()): Language {
  for (const tag of preferred) {
    const lang = asLanguage(tag);
    if (lang) return lang;
  }
  return 'en';
}

/** The locale to format in: the browser's own tag for that language when it has one. */
function formattingLocale(language: Language, preferred: readonly string[] = browserLanguages()): string {
  for (const tag of preferred) {
    if (asLanguage(tag) === language && tag.includes('-')) {
      try {
        return Intl.getCanonicalLocales(tag)[0] ?? DEFAULT_LOCALE[language];
      } catch {
        break;
      }
    }
  }
  return DEFAULT_LOCALE[language];
}

let current: { language: DisplayLanguage; locale: string } = {
  language: pickLanguage(),
  locale: formattingLocale(pickLanguage()),
};

/** The locale every Intl formatter uses, read at call time. */
export function currentLocale(): string {
  return current.locale;
}

/** Called by the provider when the language changes, before the tree re-renders. */
export function applyLanguage(language: DisplayLanguage): void {
  const base: Language = language === 'pseudo' ? 'en' : language;
  current = { language, locale: formattingLocale(base) };
  const doc = (globalThis as { document?: Document }).document;
  if (doc) doc.documentElement.lang = language === 'pseudo' ? 'en-XA' : current.locale;
}

/** `?lang=fr` (or `pseudo`) in the page address; null when absent or not a language. */
function languageFromAddress(search: string = globalThis.location?.search ?? ''): DisplayLanguage | null {
  const value = new URLSearchParams(search).get('lang');
  if (value === 'pseudo') return 'pseudo';
  return asLanguage(value);
}

function savedLanguage(): Language | null {
  try {
    return asLanguage(globalThis.localStorage?.getItem(STORAGE_KEY));
  } catch {
    return null;
  }
}

export function saveLanguage(language: Language): void {
  try {
    globalThis.localStorage?.setItem(STORAGE_KEY, language);
  } catch {
    // Storage can be switched off; the choice then lasts as long as the page.
  }
}

/** The language a page starts in, before any account preference is known. */
export function initialLanguage(remembered = true): DisplayLanguage {
  return languageFromAddress() ?? (remembered ? savedLanguage() : null) ?? pickLanguage();
}
