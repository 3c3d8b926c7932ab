import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode, useCallback, useMemo, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { I18nProvider, type Catalog, type Language } from '../ui/i18n';
import { initialLanguage } from '../ui/i18n/locale';
import { CheckoutApp, sessionIdFromLocation } from './checkout-app';
import { checkoutEnglish } from './messages-en';
import './checkout.css';

const queryClient = new QueryClient({
  defaultOptions: {
    queries: { refetchOnWindowFocus: true, staleTime: 0 },
    mutations: { retry: false },
  },
});

type Messages = Record<string, string>;

/** The French messages, a chunk of their own: an English page never downloads them. */
const loadFrench = (): Promise<Messages> => import('./messages-fr').then((m) => m.checkoutFrench);

/**
 * The payer's messages: English from the start; French once loaded. A payer whose language is
 * French gets it before the first render; one who picks French in the menu reads English for the
 * moment the chunk takes to arrive.
 */
function CheckoutI18n({ french: preloaded, children }: { french: Messages | null; children: React.ReactNode }) {
  const [french, setFrench] = useState(preloaded);
  const catalog: Catalog = useMemo(() => ({ en: checkoutEnglish, fr: french ?? checkoutEnglish }), [french]);
  const onChange = useCallback(
    (language: Language) => {
      if (language === 'fr' && !french) void loadFrench().then(setFrench);
    },
    [french],
  );
  return (
    <I18nProvider catalog={catalog} onChange={onChange}>
      {children}
    </I18nProvider>
  );
}

const root = document.getElementById('root');
if (!root) throw new Error('checkout: #root missing from index.html');

function render(french: Messages | null): void {
  createRoot(root!).render(
    <StrictMode>
      <CheckoutI18n french={french}>
        <QueryClientProvider client={queryClient}>
          <CheckoutApp sessionId={sessionIdFromLocation(window.location.pathname)} />
        </QueryClientProvider>
      </CheckoutI18n>
    </StrictMode>,
  );
}

// A French page waits for its messages (one small request) rather than flash English; should the
// chunk fail to arrive, the page still opens, in English.
if (initialLanguage() === 'fr') loadFrench().then(render, () => render(null));
else render(null);
