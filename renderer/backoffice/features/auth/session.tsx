import { createContext, useContext, useMemo, useState, type ReactNode } from 'react';
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
  const value = useMemo<SessionValue>(() => ({ session, signIn: setSession, signOut: () => setSession(null) }), [session]);
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionValue {
  const value = useContext(SessionContext);
  if (!value) throw new Error('useSession outside SessionProvider');
  return value;
}
