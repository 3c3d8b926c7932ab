import { createContext, type ReactNode, useCallback, useContext, useMemo, useState } from 'react';
import { IntlProvider, useIntl } from 'react-intl';

import { type Catalog, messagesFor } from './catalog';
import {
  applyLanguage,
  currentLocale,
  type DisplayLanguage,
  initialLanguage,
  type Language,
  LANGUAGE_NAMES,
  LANGUAGES,
  saveLanguage,
} from './locale';

type Values = Record<string, ReactNode | ((chunks: ReactNode[]) => ReactNode)>;

/** A message by id, with ICU arguments. Returns a string unless rich-text values are given. */
export interface T {
  (id: string, values?: Record<string, string | number | Date | null | undefined>): string;
  (id: string, values: Values): ReactNode;
}

interface LanguageState {
  language: DisplayLanguage;
  setLanguage: (language: Language) => void;
}

const LanguageContext = createContext<LanguageState | null>(null);

/**
 * Messages for an app in the person's language. `onChange` is told of a choice made with the
 * language menu (the back office saves it on the staff account); the choice is also kept on
 * this device.
 */
export function I18nProvider({
  catalog,
  language: chosen,
  onChange,
  remember = true,
  children,
}: {
  catalog: Catalog;
  language?: Language | null;
  onChange?: (language: Language) => void;
  /**
   * Keep the choice on this device (payer pages). The back office says false: its choice lives
   * on the staff account (`language`, kept current by `onChange`), and a shared counter PC
   * shows the sign-in screen in the browser's language.
   */
  remember?: boolean;
  children: ReactNode;
}) {
  const [local, setLocal] = useState<DisplayLanguage>(() => initialLanguage(remember));
  // A `?lang=pseudo` test render stays pseudo whatever the account says.
  const language: DisplayLanguage = local === 'pseudo' ? 'pseudo' : (chosen ?? local);
  applyLanguage(language);

  const setLanguage = useCallback(
    (next: Language) => {
      if (remember) {
        saveLanguage(next);
        setLocal(next);
      }
      onChange?.(next);
    },
    [onChange, remember],
  );
  const messages = useMemo(() => messagesFor(catalog, language), [catalog, language]);
  const state = useMemo(() => ({ language, setLanguage }), [language, setLanguage]);

  return (
    <LanguageContext.Provider value={state}>
      {/*
        Not keyed on the language: a switch re-renders the tree in place, so what is being typed
        in a form stays. Every component that writes words or numbers re-renders with it (each
        reads the intl context through useT, or sits under one that does; none is memoised).
      */}
      <IntlProvider
        locale={currentLocale()}
        messages={messages}
        defaultLocale="en-GH"
        onError={reportMissing}
      >
        {children}
      </IntlProvider>
    </LanguageContext.Provider>
  );
}

function reportMissing(err: { code?: string; message: string }): void {
  // A missing id is caught by the catalogue test; should one reach a page, it shows the id and
  // says so in the console.
  console.error(err.message);
}

function useLanguage(): LanguageState {
  const state = useContext(LanguageContext);
  if (!state) throw new Error('useLanguage outside I18nProvider');
  return state;
}

/** `t('feature.thing', { count })`: the message in the current language. */
export function useT(): T {
  const intl = useIntl();
  return useCallback(
    ((id: string, values?: Values) => intl.formatMessage({ id }, values as never)) as T,
    [intl],
  );
}

/** The language menu: each language named in itself. */
export function LanguageSwitch({ label, className }: { label: string; className?: string }) {
  const { language, setLanguage } = useLanguage();
  return (
    <label className={className ?? 'language-switch'}>
      <span className="language-switch-label">{label}</span>
      <select
        value={language === 'pseudo' ? 'en' : language}
        onChange={(e) => setLanguage(e.target.value as Language)}
      >
        {LANGUAGES.map((lang) => (
          <option key={lang} value={lang} lang={lang} translate="no">
            {LANGUAGE_NAMES[lang]}
          </option>
        ))}
      </select>
    </label>
  );
}
