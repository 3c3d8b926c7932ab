import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { useState } from 'react';
import { SessionProvider, useSession } from './features/auth/session';
import { SignInScreen } from './features/auth/sign-in-screen';
import { AppShell } from './layout/app-shell';
import { RouterProvider } from './router';

export function createQueryClient(): QueryClient {
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
        <RouterProvider>
          <Gate />
        </RouterProvider>
      </SessionProvider>
    </QueryClientProvider>
  );
}

/** Staff see the sign-in screen until they hold a token; then the shell and its routes. */
function Gate() {
  const { session } = useSession();
  return session ? <AppShell /> : <SignInScreen />;
}
