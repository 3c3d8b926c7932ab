import { bookkeeping } from '../bookkeeping';
import { pidLiveness } from './pid-liveness';
import type { ClaimStrategy } from './types';

export const sqliteClaim: ClaimStrategy = {
  defaultAhead: (concurrency) => concurrency,
  // One writer: no other instance claims at the same time.
  lockDue: (due) => due,
  // In a transaction of bookkeeping, so its lease is not synced by itself; what it claims was synced when its event committed.
  claimAlone: (db, claim) => bookkeeping(db, (trx) => claim(trx)),
  claimsAlongOutcomes: true,
  liveness: (db) => pidLiveness(db),
};
