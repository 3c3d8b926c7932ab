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
  if (!(err instanceof ApiError)) return { general: t('auth.password.unreachable') };
  if (err.code === 'RATE_LIMITED') return { general: t('auth.password.tooManyTries') };
  const [field, ...rest] = err.message.split(': ');
  const text = rest.join(': ');
  if (field === 'current_password') return { current: t('auth.password.notCurrent') };
  if (field === 'new_password') return { next: newPasswordText(t, text) };
  return { general: errorText(t, err) };
}

/** The password policy's reason (server/modules/auth/password-policy.ts) in the staff member's language. */
export function newPasswordText(t: T, reason: string): string {
  const least = /at least (\d+) characters/.exec(reason);
  if (least) return t('auth.password.tooShort', { min: Number(least[1]) });
  const most = /at most (\d+) characters/.exec(reason);
  if (most) return t('auth.password.tooLong', { max: Number(most[1]) });
  if (/too few different characters/.test(reason)) return t('auth.password.fewCharacters');
  if (/username/.test(reason)) return t('auth.password.hasUsername');
  if (/commonly used/.test(reason)) return t('auth.password.common');
  if (/differ from the current/.test(reason)) return t('auth.password.same');
  return t('auth.password.weak');
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
        {forced ? t('auth.password.forcedTitle') : t('auth.password.title')}
      </h1>
      <p className="sign-in__hint">
        {forced ? t('auth.password.forcedHint') : t('auth.password.hint', { min: MIN_LENGTH })}
      </p>
      <TextField label={forced ? t('auth.password.given') : t('auth.password.current')} name="current-password" type="password" autoComplete="current-password" value={current} onChange={setCurrent} error={errors.current} required />
      <TextField label={t('auth.password.new')} name="new-password" type="password" autoComplete="new-password" value={next} onChange={setNext} error={errors.next} required minLength={MIN_LENGTH} />
      <TextField
        label={t('auth.password.repeat')}
        name="repeat-password"
        type="password"
        autoComplete="new-password"
        value={repeat}
        onChange={setRepeat}
        error={mismatch ? t('auth.password.differ') : undefined}
        required
      />
      {errors.general && <Notice tone="error">{errors.general}</Notice>}
      {mutation.isSuccess && !forced && <Notice tone="success">{t('auth.password.changed')}</Notice>}
      <Button type="submit" disabled={mutation.isPending || !current || !next || !repeat}>
        {mutation.isPending ? t('auth.password.saving') : t('auth.password.save')}
      </Button>
      {extra}
    </form>
  );
}

/** Full-screen forced change, before the shell: no other page works until it is done (403 PASSWORD_CHANGE_REQUIRED). */
export function ForcedPasswordChangeScreen() {
  const t = useT();
  const { signOut } = useSession();
  return (
    <main className="sign-in">
      <ChangePasswordForm
        forced
        extra={
          <Button variant="secondary" onClick={signOut}>
            {t('auth.password.signOutInstead')}
          </Button>
        }
      />
    </main>
  );
}
