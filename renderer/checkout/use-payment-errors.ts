import { useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { useT } from '../ui/i18n';
import { ApiError, describeError, refreshSession } from './api';

/**
 * Turns a failed write into words for the payer. A 409 (session paid, pending, expired, amount
 * changed) re-reads the session and the quote, so the page moves to whatever is true now
 * instead of stopping at an error.
 */
export function usePaymentErrors(sessionId: string) {
  const qc = useQueryClient();
  const t = useT();
  return useCallback(
    (err: unknown): string => {
      if (err instanceof ApiError && (err.isConflict || err.status === 404)) void refreshSession(qc, sessionId);
      return describeError(t, err);
    },
    [qc, sessionId, t],
  );
}
