import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, useSyncExternalStore, type FormEvent, type ReactNode } from 'react';
import { z } from 'zod';
import { Button } from '../../../ui/button';
import { Notice } from '../../../ui/notice';
import { TextField } from '../../../ui/fields';
import { useT, type T } from '../../../ui/i18n';
import { ApiError, apiRequest, BACKOFFICE_API } from '../../api/client';
import { errorText } from '../common/error-text';
import { newPasswordText } from './change-password';

const SETUP = `${BACKOFFICE_API}/setup`;
const Status = z.object({ open: z.boolean(), set_up: z.boolean() });
const Done = z.object({ id: z.string(), username: z.string(), role: z.literal('admin') });

/**
 * The refusal of a setup call, in the reader's language: a spent link, or a field (the password
 * policy's reason as the password page words it). An installation set up meanwhile shows its card.
 */
function refusal(t: T, err: unknown): string {
  if (err instanceof ApiError && err.code === 'UNAUTHORIZED') return t('auth.setup.refused');
  if (err instanceof ApiError && err.code === 'INVALID_ARGUMENT' && err.message.startsWith('password: ')) {
    return newPasswordText(t, err.message.slice('password: '.length));
  }
  return errorText(t, err);
}

/** The setup token in the address's fragment, followed as it changes (a new link pasted into the same tab). */
const onHashChange = (notify: () => void) => {
  window.addEventListener('hashchange', notify);
  return () => window.removeEventListener('hashchange', notify);
};
const tokenInAddress = () => new URLSearchParams(window.location.hash.slice(1)).get('token') ?? '';

/** A card with a title, a sentence and the way on to the sign-in page. */
function Card({ title, children }: { title: string; children: ReactNode }) {
  const t = useT();
  return (
    <main className="sign-in">
      <div className="sign-in__card">
        <h1 className="sign-in__title">{title}</h1>
        <p className="sign-in__hint">{children}</p>
        <a className="ui-button ui-button--primary" href="/backoffice/">
          {t('auth.setup.goSignIn')}
        </a>
      </div>
    </main>
  );
}

/**
 * First run: the page of the one-time setup link the server printed at start
 * (`/backoffice/setup#token=…`). It creates the first administrator; the token never leaves
 * the address's fragment for anything but that one call. It asks the server first whether a
 * link may still be used: on an installation already set up, or once every link has expired,
 * it says so and offers the sign-in page instead of a form that could only be refused.
 */
export function SetupScreen() {
  const t = useT();
  const token = useSyncExternalStore(onHashChange, tokenInAddress);
  const queryClient = useQueryClient();
  const [fullName, setFullName] = useState('');
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  // Asked again for each token (a server restarted for a new link may answer otherwise). When the
  // server cannot say, the form shows and the setup call itself is refused or not.
  const status = useQuery({ queryKey: ['first-run-setup', token], queryFn: () => apiRequest(SETUP, { schema: Status }), retry: false, staleTime: Infinity });
  const create = useMutation({
    mutationFn: () => apiRequest(SETUP, { method: 'POST', body: { token, username: username.trim(), full_name: fullName.trim(), password }, schema: Done }),
    // Set up meanwhile (another tab, another instance): the card replaces the form.
    onError: (err) => {
      if (err instanceof ApiError && err.code === 'FORBIDDEN') void queryClient.invalidateQueries({ queryKey: ['first-run-setup'] });
    },
  });
  const { reset } = create;
  // A new link in the address: the last attempt's refusal was about the old one.
  useEffect(() => reset(), [token, reset]);
  const onSubmit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    create.mutate();
  };
  if (create.isSuccess) {
    return <Card title={t('auth.setup.doneTitle')}>{t('auth.setup.done', { who: () => <strong translate="no">{create.data.username}</strong> })}</Card>;
  }
  if (status.isPending) return <main className="sign-in" aria-busy="true" />;
  if (status.data?.set_up) return <Card title={t('auth.setup.setUpTitle')}>{t('auth.setup.setUp')}</Card>;
  if (status.data && !status.data.open) return <Card title={t(token ? 'auth.setup.expiredTitle' : 'auth.setup.noneOpenTitle')}>{t('auth.setup.expired')}</Card>;
  return (
    <main className="sign-in">
      <form className="sign-in__card" onSubmit={onSubmit} aria-labelledby="setup-title" noValidate>
        <h1 id="setup-title" className="sign-in__title">
          {t('auth.setup.title')}
        </h1>
        <p className="sign-in__hint">{t('auth.setup.hint')}</p>
        {!token && <Notice tone="error">{t('auth.setup.noToken')}</Notice>}
        <TextField label={t('auth.setup.fullName')} name="full_name" autoComplete="name" value={fullName} onChange={setFullName} required autoFocus />
        <TextField label={t('auth.username')} name="username" autoComplete="username" value={username} onChange={setUsername} required />
        <TextField label={t('auth.setup.password')} name="password" type="password" autoComplete="new-password" value={password} onChange={setPassword} required />
        {create.isError && <Notice tone="error">{refusal(t, create.error)}</Notice>}
        <Button type="submit" disabled={create.isPending || !token || !fullName.trim() || !username.trim() || !password}>
          {create.isPending ? t('auth.setup.busy') : t('auth.setup.submit')}
        </Button>
      </form>
    </main>
  );
}
