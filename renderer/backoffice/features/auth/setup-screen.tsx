import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { z } from 'zod';
import { Button } from '../../../ui/button';
import { Notice } from '../../../ui/notice';
import { TextField } from '../../../ui/fields';
import { useT } from '../../../ui/i18n';
import { ApiError } from '../../api/client';

const Done = z.object({ id: z.string(), username: z.string(), role: z.literal('admin') });

/**
 * First run: the page of the one-time setup link the server printed at start
 * (`/backoffice/setup#token=…`). It creates the first administrator; the token never leaves
 * the address's fragment for anything but that one call.
 */
export function SetupScreen() {
  const t = useT();
  const token = new URLSearchParams(window.location.hash.slice(1)).get('token') ?? '';
  const [fullName, setFullName] = useState('');
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const create = useMutation({
    mutationFn: async () => {
      const res = await fetch('/api/backoffice/v1/setup', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token, username: username.trim(), full_name: fullName.trim(), password }),
      });
      const body = (await res.json()) as { error?: { code: string; message: string } };
      if (!res.ok) throw new ApiError(res.status, body.error?.code ?? 'ERROR', body.error?.message ?? `HTTP ${res.status}`);
      return Done.parse(body);
    },
  });
  const onSubmit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    create.mutate();
  };
  if (create.isSuccess) {
    return (
      <main className="sign-in">
        <div className="sign-in__card">
          <h1 className="sign-in__title">{t('auth.setup.doneTitle')}</h1>
          <p className="sign-in__hint">{t('auth.setup.done', { who: () => <strong translate="no">{create.data.username}</strong> })}</p>
          <a className="ui-button" href="/backoffice/">
            {t('auth.setup.goSignIn')}
          </a>
        </div>
      </main>
    );
  }
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
        {/* The server's own sentence (the setup link's state), as it wrote it. */}
        {create.isError && <Notice tone="error">{create.error instanceof ApiError ? <span translate="no">{create.error.message}</span> : t('auth.unreachable')}</Notice>}
        <Button type="submit" disabled={create.isPending || !token || !fullName.trim() || !username.trim() || !password}>
          {create.isPending ? t('auth.setup.busy') : t('auth.setup.submit')}
        </Button>
      </form>
    </main>
  );
}
