import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { I18nProvider } from '../ui/i18n';
import { CheckoutApp, sessionIdFromLocation } from './checkout-app';
import { checkoutCatalog } from './messages';
import './checkout.css';

const queryClient = new QueryClient({
  defaultOptions: {
    queries: { refetchOnWindowFocus: true, staleTime: 0 },
    mutations: { retry: false },
  },
});

const root = document.getElementById('root');
if (!root) throw new Error('checkout: #root missing from index.html');

createRoot(root).render(
  <StrictMode>
    <I18nProvider catalog={checkoutCatalog}>
      <QueryClientProvider client={queryClient}>
        <CheckoutApp sessionId={sessionIdFromLocation(window.location.pathname)} />
      </QueryClientProvider>
    </I18nProvider>
  </StrictMode>,
);
