import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { SessionProvider, useSession } from './features/auth/session';
import { ForcedPasswordChangeScreen } from './features/auth/change-password';
import { SignInScreen } from './features/auth/sign-in-screen';
import { SetupScreen } from './features/auth/setup-screen';
import { AppShell } from './layout/app-shell';
import { I18nProvider, useT } from '../ui/i18n';
import { backofficeCatalog } from './messages';
import { RouterProvider } from './router';

function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: { staleTime: 10_000, refetchOnWindowFocus: true, retry: 1 },
      mutations: { retry: false },
    },
  });
}

export function App() {
  const [queryClient] = useState(createQueryClient);
  return (
    <QueryClientProvider client={queryClient}>
      <SessionProvider>
        <Localized>
          <RouterProvider>
            <Gate />
          </RouterProvider>
        </Localized>
      </SessionProvider>
    </QueryClientProvider>
  );
}

/**
 * The back office in the staff member's language: the one saved on their account once signed
 * in, the browser's before (a counter PC is shared, so nothing is kept on the device).
 */
function Localized({ children }: { children: ReactNode }) {
  const { session, chooseLanguage } = useSession();
  return (
    <I18nProvider catalog={backofficeCatalog} language={session?.language ?? null} onChange={chooseLanguage} remember={false}>
      {children}
    </I18nProvider>
  );
}

/**
 * Until the server says whether the sign-in cookie is still good, nothing; then the sign-in
 * screen, the forced password change, or the shell at the page the address names.
 */
function Gate() {
  const { session } = useSession();
  const t = useT();
  if (session === undefined) return <p className="sign-in" role="status">{t('shell.loading')}</p>;
  if (!session) return window.location.pathname === '/backoffice/setup' ? <SetupScreen /> : <SignInScreen />;
  return session.mustChangePassword ? <ForcedPasswordChangeScreen /> : <AppShell />;
}
