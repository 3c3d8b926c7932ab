import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { z } from 'zod';
import { Button } from '../../../ui/button';
import { Notice } from '../../../ui/notice';
import { TextField } from '../../../ui/fields';
import { ApiError } from '../../api/client';

const Done = z.object({ id: z.string(), username: z.string(), role: z.literal('admin') });

/**
 * First run: the page of the one-time setup link the server printed at start
 * (`/backoffice/setup#token=…`). It creates the first administrator; the token never leaves
 * the address's fragment for anything but that one call.
 */
export function SetupScreen() {
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
          <h1 className="sign-in__title">Administrator created</h1>
          <p className="sign-in__hint">
            {create.data.username} can now sign in and create the other staff accounts (Administration → Staff). This setup link no longer works.
          </p>
          <a className="ui-button" href="/backoffice/">
            Go to sign-in
          </a>
        </div>
      </main>
    );
  }
  return (
    <main className="sign-in">
      <form className="sign-in__card" onSubmit={onSubmit} aria-labelledby="setup-title" noValidate>
        <h1 id="setup-title" className="sign-in__title">
          Set up Paydesk
        </h1>
        <p className="sign-in__hint">Create the first administrator. This link works once, for 30 minutes after the server started.</p>
        {!token && <Notice tone="error">This address has no setup token. Use the whole link the server printed when it started.</Notice>}
        <TextField label="Full name" name="full_name" autoComplete="name" value={fullName} onChange={setFullName} required autoFocus />
        <TextField label="Username" name="username" autoComplete="username" value={username} onChange={setUsername} required />
        <TextField label="Password (12+ characters)" name="password" type="password" autoComplete="new-password" value={password} onChange={setPassword} required />
        {create.isError && <Notice tone="error">{create.error instanceof ApiError ? create.error.message : 'The Paydesk server could not be reached. Is it running?'}</Notice>}
        <Button type="submit" disabled={create.isPending || !token || !fullName.trim() || !username.trim() || !password}>
          {create.isPending ? 'Creating…' : 'Create administrator'}
        </Button>
      </form>
    </main>
  );
}
