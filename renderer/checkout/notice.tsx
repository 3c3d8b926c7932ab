import type { ReactNode } from 'react';
import { Spinner } from './icons';

/** A message the payer must read before going on: announced at once (role="alert"). */
export function ErrorNotice({ children, testId }: { children: ReactNode; testId?: string }) {
  return (
    <div className="notice notice-error" role="alert" data-testid={testId}>
      {children}
    </div>
  );
}

/** A button's label: the spinner and `busy` while its action runs, `idle` otherwise. */
export function PendingLabel({ pending, busy, idle }: { pending: boolean; busy: ReactNode; idle: ReactNode }) {
  return pending ? (
    <>
      <Spinner /> {busy}
    </>
  ) : (
    <>{idle}</>
  );
}
