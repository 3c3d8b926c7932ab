import { useQueryClient } from '@tanstack/react-query';
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { StaffMe } from '../../../../shared/schemas/backoffice';
import { apiRequest, BACKOFFICE_API } from '../../api/client';
import type { Language } from '../../../ui/i18n';
import type { StaffRole } from '../../routes';

export interface StaffUser {
  id: string;
  username: string;
  role: StaffRole;
}

export interface StaffSession {
  user: StaffUser;
  /** An admin created or reset the account: the user must choose a password first. */
  mustChangePassword: boolean;
  /** The language saved on the account (staff menu); null: the browser's. */
  language: Language | null;
}

interface SessionValue {
  /** `undefined` while the page asks the server whether its cookie still signs someone in. */
  session: StaffSession | null | undefined;
  signIn(login: { user: StaffUser; must_change_password: boolean }): void;
  signOut(): void;
  passwordChanged(): void;
  /** The staff menu's language choice: shown at once and saved on the account (POST /me/language). */
  chooseLanguage(language: Language): void;
}

const SessionContext = createContext<SessionValue | null>(null);

/**
 * No keyboard, pointer or touch input for this long signs the user out: the cookie survives
 * reloads, so a counter PC left alone must not stay signed in until the token expires.
 */
const IDLE_SIGN_OUT_MS = 30 * 60 * 1000;
const ACTIVITY_EVENTS = ['keydown', 'pointerdown', 'touchstart', 'wheel'] as const;

/**
 * The sign-in lives in an HttpOnly, SameSite=Strict cookie the server sets (docs/backoffice.md
 * § Where the sign-in lives): page script never sees or stores the token, and a reload or a
 * pasted deep link asks GET /me whether the cookie still signs someone in.
 */
export function SessionProvider({ children }: { children: ReactNode }) {
  const [session, setSession] = useState<StaffSession | null | undefined>(undefined);
  const queryClient = useQueryClient();
  useEffect(() => {
    let live = true;
    apiRequest(`${BACKOFFICE_API}/me`, { schema: StaffMe }).then(
      (me) =>
        live &&
        setSession({ user: { id: me.user.id, username: me.user.username, role: me.user.role }, mustChangePassword: me.must_change_password, language: me.user.language }),
      () => live && setSession(null),
    );
    return () => {
      live = false;
    };
  }, []);
  const signIn = useCallback(
    (login: { user: StaffUser; must_change_password: boolean }) => {
      // Nothing cached for the previous user may show to the next one.
      queryClient.clear();
      setSession({ user: login.user, mustChangePassword: login.must_change_password, language: null });
      // The account's language (GET /me): the back office switches to it as soon as it is known,
      // unless the staff menu has set one in the meantime (language no longer null): an answer
      // sent before that choice must not undo it.
      void apiRequest(`${BACKOFFICE_API}/me`, { schema: StaffMe }).then(
        (me) => setSession((s) => (s && s.user.id === me.user.id && s.language === null ? { ...s, language: me.user.language } : s)),
        () => undefined,
      );
    },
    [queryClient],
  );
  const signOut = useCallback(() => {
    // Revokes the token and clears the cookie (best effort: an expired token is already void).
    void apiRequest(`${BACKOFFICE_API}/auth/logout`, { method: 'POST' }).catch(() => undefined);
    queryClient.clear();
    setSession(null);
  }, [queryClient]);
  const signedIn = session !== null && session !== undefined;
  useEffect(() => {
    if (!signedIn) return;
    let timer = window.setTimeout(signOut, IDLE_SIGN_OUT_MS);
    const activity = () => {
      window.clearTimeout(timer);
      timer = window.setTimeout(signOut, IDLE_SIGN_OUT_MS);
    };
    for (const e of ACTIVITY_EVENTS) window.addEventListener(e, activity, { passive: true });
    return () => {
      window.clearTimeout(timer);
      for (const e of ACTIVITY_EVENTS) window.removeEventListener(e, activity);
    };
  }, [signedIn, signOut]);
  const passwordChanged = useCallback(() => setSession((s) => (s ? { ...s, mustChangePassword: false } : s)), []);
  const chooseLanguage = useCallback((language: Language) => {
    setSession((s) => (s ? { ...s, language } : s));
    // Best effort: should saving fail, the choice still holds until sign-out.
    void apiRequest(`${BACKOFFICE_API}/me/language`, { method: 'POST', body: { language }, schema: StaffMe }).catch(() => undefined);
  }, []);
  const value = useMemo<SessionValue>(
    () => ({ session, signIn, signOut, passwordChanged, chooseLanguage }),
    [session, signIn, signOut, passwordChanged, chooseLanguage],
  );
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionValue {
  const value = useContext(SessionContext);
  if (!value) throw new Error('useSession outside SessionProvider');
  return value;
}
