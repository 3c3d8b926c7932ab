import type { Rail } from '../../shared/schemas/common';

/** An attempt still pending on the session (from `pending_attempt`), so a reloaded page picks it up. */
export interface ResumableAttempt {
  rail: Rail;
  ref: string;
  /** The attempt's instructions as the session reports them (momo: operator, phone_last4; bank transfer: account details). */
  instructions: Record<string, unknown>;
}

export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
export const int = (v: unknown): number | undefined => (typeof v === 'number' && Number.isInteger(v) ? v : undefined);
