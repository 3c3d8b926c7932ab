import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent, type ReactNode } from 'react';
import { Button } from '../../../ui/button';
import { useT, type T } from '../../../ui/i18n';
import { Notice } from '../../../ui/notice';
import { TextField } from '../../../ui/fields';
import { ApiError } from '../../api/client';
import { errorText } from '../common/error-text';
import { changePassword } from './auth.api';
import { useSession } from './session';

const MIN_LENGTH = 12; // server/modules/auth/password-policy.ts

/** The server names the field first ("new_password: must be at least 12 characters"): attach the rest to that field. */
function fieldErrors(t: T, err: unknown): { current?: string; next?: string; general?: string } {
  if (!(err instanceof ApiError)) return { general: 'The Paydesk server could not be reached.' };
  if (err.code === 'RATE_LIMITED') return { general: 'Too many wrong current passwords. Wait a few minutes, then try again.' };
  const [field, ...rest] = err.message.split(': ');
  const text = rest.join(': ');
  if (field === 'current_password') return { current: 'This is not your current password.' };
  if (field === 'new_password') return { next: `The new password ${text}.` };
  return { general: errorText(t, err) };
}

/**
 * Choose a new password: the forced step after an admin created or reset the account, and
 * the "Change password" page for everyone else. Other sessions of the user are signed out.
 */
export function ChangePasswordForm({ forced, extra }: { forced: boolean; extra?: ReactNode }) {
  const t = useT();
  const { passwordChanged } = useSession();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [repeat, setRepeat] = useState('');
  const [mismatch, setMismatch] = useState(false);
  const mutation = useMutation({ mutationFn: changePassword, onSuccess: passwordChanged });
  const errors = mutation.isError ? fieldErrors(t, mutation.error) : {};

  const onSubmit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    setMismatch(next !== repeat);
    if (next !== repeat) return;
    mutation.mutate({ current_password: current, new_password: next });
  };

  return (
    <form className="sign-in__card" onSubmit={onSubmit} aria-labelledby="change-password-title" noValidate data-testid="change-password">
      <h1 id="change-password-title" className="sign-in__title">
        {forced ? 'Choose your own password' : 'Change password'}
      </h1>
      <p className="sign-in__hint">
        {forced
          ? 'An administrator set the password you signed in with. Choose one only you know before you continue.'
          : `At least ${MIN_LENGTH} characters; a few unrelated words are easy to remember and hard to guess. Your other sessions will be signed out.`}
      </p>
      <TextField label={forced ? 'Password you were given' : 'Current password'} name="current-password" type="password" autoComplete="current-password" value={current} onChange={setCurrent} error={errors.current} required />
      <TextField label="New password" name="new-password" type="password" autoComplete="new-password" value={next} onChange={setNext} error={errors.next} required minLength={MIN_LENGTH} />
      <TextField
        label="New password again"
        name="repeat-password"
        type="password"
        autoComplete="new-password"
        value={repeat}
        onChange={setRepeat}
        error={mismatch ? 'The two new passwords differ.' : undefined}
        required
      />
      {errors.general && <Notice tone="error">{errors.general}</Notice>}
      {mutation.isSuccess && !forced && <Notice tone="success">Your password is changed.</Notice>}
      <Button type="submit" disabled={mutation.isPending || !current || !next || !repeat}>
        {mutation.isPending ? 'Saving…' : 'Save new password'}
      </Button>
      {extra}
    </form>
  );
}

/** Full-screen forced change, before the shell: no other page works until it is done (403 PASSWORD_CHANGE_REQUIRED). */
export function ForcedPasswordChangeScreen() {
  const { signOut } = useSession();
  return (
    <main className="sign-in">
      <ChangePasswordForm
        forced
        extra={
          <Button variant="secondary" onClick={signOut}>
            Sign out instead
          </Button>
        }
      />
    </main>
  );
}
