import { useQueryClient } from '@tanstack/react-query';
import { createContext, useContext, useMemo, useState, type ReactNode } from 'react';
import { apiRequest, BACKOFFICE_API } from '../../api/client';
import type { StaffRole } from '../../routes';

export interface StaffUser {
  id: string;
  username: string;
  role: StaffRole;
}

export interface StaffSession {
  token: string;
  user: StaffUser;
}

interface SessionValue {
  session: StaffSession | null;
  signIn(session: StaffSession): void;
  signOut(): void;
}

const SessionContext = createContext<SessionValue | null>(null);

/**
 * The staff token lives in React state only: never localStorage or sessionStorage, so it is
 * gone when the window closes or reloads and no other page script can read it from storage.
 */
export function SessionProvider({ children }: { children: ReactNode }) {
  const [session, setSession] = useState<StaffSession | null>(null);
  const queryClient = useQueryClient();
  const value = useMemo<SessionValue>(
    () => ({
      session,
      signIn: (next) => {
        // Nothing cached for the previous user may show to the next one.
        queryClient.clear();
        setSession(next);
      },
      signOut: () => {
        // Revoke the token on the server too (best effort: an expired token is already void).
        if (session) void apiRequest(`${BACKOFFICE_API}/auth/logout`, { method: 'POST', token: session.token }).catch(() => undefined);
        queryClient.clear();
        setSession(null);
      },
    }),
    [session, queryClient],
  );
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionValue {
  const value = useContext(SessionContext);
  if (!value) throw new Error('useSession outside SessionProvider');
  return value;
}
