import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Button } from '../../../ui/button';
import { Notice } from '../../../ui/notice';
import { TextField } from '../../../ui/fields';
import { useT, type T } from '../../../ui/i18n';
import { ApiError } from '../../api/client';
import { errorText } from '../common/error-text';
import { login } from './auth.api';
import { useSession } from './session';

function describeError(t: T, err: unknown): string {
  if (err instanceof ApiError) {
    if (err.code === 'UNAUTHORIZED') return t('auth.signIn.wrong');
    if (err.status === 404) return t('auth.signIn.unsupported');
    return errorText(t, err);
  }
  return t('auth.unreachable');
}

export function SignInScreen() {
  const t = useT();
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
          {t('auth.signIn.title')}
        </h1>
        <p className="sign-in__hint">{t('auth.signIn.hint')}</p>
        <TextField label={t('auth.username')} name="username" autoComplete="username" value={username} onChange={setUsername} required autoFocus />
        <TextField
          label={t('auth.password')}
          name="password"
          type="password"
          autoComplete="current-password"
          value={password}
          onChange={setPassword}
          required
        />
        {mutation.isError && <Notice tone="error">{describeError(t, mutation.error)}</Notice>}
        <Button type="submit" disabled={mutation.isPending || !username.trim() || !password}>
          {mutation.isPending ? t('auth.signIn.busy') : t('auth.signIn.submit')}
        </Button>
      </form>
    </main>
  );
}
