import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { useApi } from '../common/api';
import { useErrorText } from '../common/error-text';

/** A check the form makes before calling the server: its message is already a sentence for staff. */
export class FormError extends Error {}

/** One mutation with its outcome message and the admin caches refreshed. */
/** `settled` runs after success or failure (closes a confirmation so the outcome is visible). */
export function useAdminAction<A, R>(fn: (a: A) => Promise<R>, success: (r: R, a: A) => ReactNode | null, settled?: () => void) {
  const errorText = useErrorText();
  const api = useApi();
  const queryClient = useQueryClient();
  const [note, setNote] = useState<{ tone: 'success' | 'error'; body: ReactNode } | null>(null);
  const m = useMutation({
    mutationFn: fn,
    onSettled: () => settled?.(),
    onSuccess: (r, a) => {
      const body = success(r, a);
      setNote(body ? { tone: 'success', body } : null);
      void queryClient.invalidateQueries({ queryKey: ['admin', api.userId] });
    },
    onError: (err) => setNote({ tone: 'error', body: err instanceof FormError ? err.message : errorText(err) }),
  });
  const view = note ? (
    <div className={`bo-alert bo-alert--${note.tone}`} role={note.tone === 'error' ? 'alert' : 'status'}>
      {note.body}
    </div>
  ) : null;
  return { mutate: m.mutate, pending: m.isPending, note: view, clear: () => setNote(null) };
}

