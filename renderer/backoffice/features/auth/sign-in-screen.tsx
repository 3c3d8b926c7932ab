import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Button } from '../../../ui/button';
import { Notice } from '../../../ui/notice';
import { TextField } from '../../../ui/fields';
import { ApiError } from '../../api/client';
import { login } from './auth.api';
import { useSession } from './session';

function describeError(err: unknown): string {
  if (err instanceof ApiError) {
    if (err.code === 'UNAUTHORIZED') return 'That username and password do not match a staff account.';
    if (err.status === 404) return 'This server does not offer staff sign-in yet.';
    return err.message;
  }
  return 'The Paydesk server could not be reached. Is it running?';
}

export function SignInScreen() {
  const { signIn } = useSession();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const mutation = useMutation({ mutationFn: login, onSuccess: signIn });

  const onSubmit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    mutation.mutate({ username: username.trim(), password });
  };

  return (
    <main className="sign-in">
      <form className="sign-in__card" onSubmit={onSubmit} aria-labelledby="sign-in-title" noValidate>
        <h1 id="sign-in-title" className="sign-in__title">
          Paydesk back office
        </h1>
        <p className="sign-in__hint">Sign in with the staff account an administrator created for you. On a new installation, the first administrator is created with the setup link the server printed when it started.</p>
        <TextField label="Username" name="username" autoComplete="username" value={username} onChange={setUsername} required autoFocus />
        <TextField
          label="Password"
          name="password"
          type="password"
          autoComplete="current-password"
          value={password}
          onChange={setPassword}
          required
        />
        {mutation.isError && <Notice tone="error">{describeError(mutation.error)}</Notice>}
        <Button type="submit" disabled={mutation.isPending || !username.trim() || !password}>
          {mutation.isPending ? 'Signing in…' : 'Sign in'}
        </Button>
      </form>
    </main>
  );
}
