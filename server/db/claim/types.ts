import type { SelectQueryBuilder } from 'kysely';
import type { Db } from '../database';

/**
 * How the webhook dispatcher (server/modules/webhooks/dispatcher.ts) claims deliveries and tells
 * whether a lease's holder still runs, per engine (sqlite.ts, postgres.ts):
 * - **PostgreSQL** (several instances on one table): the due rows another instance is claiming
 *   right now are skipped, not waited for (`FOR UPDATE SKIP LOCKED`); every dispatcher keeps one
 *   connection outside the pool that holds a session advisory lock named after its owner id and
 *   LISTENs for new deliveries. PostgreSQL drops the lock the moment that connection dies, so "a
 *   lease whose owner's lock nobody holds" is a dead instance's lease, on any host.
 * - **SQLite** (one writer, one host): claims are bookkeeping (server/db/bookkeeping.ts): not
 *   synced on their own, claimed ahead of the free slots and again in the transaction that
 *   writes the outcomes; the owner id carries the process id, and a pid that no longer runs on
 *   this host is dead.
 */
export interface ClaimStrategy {
  /** Deliveries claimed ahead of the free slots when the dispatcher is not told (`claimAhead`). */
  defaultAhead(concurrency: number): number;
  /** The due rows' select, as the claim's UPDATE takes them. */
  lockDue<DB, TB extends keyof DB, O>(due: SelectQueryBuilder<DB, TB, O>): SelectQueryBuilder<DB, TB, O>;
  /** Runs a claim on its own (not along with outcomes). */
  claimAlone<T>(db: Db, claim: (on: Db) => Promise<T>): Promise<T>;
  /**
   * Whether the transaction writing outcomes claims the slots they free (one COMMIT per round of
   * the fan-out instead of two). PostgreSQL claims in the dispatcher's tick instead: a claim there
   * would hold its row locks for the outcomes' transaction.
   */
  readonly claimsAlongOutcomes: boolean;
  /** The liveness of lease holders, for the dispatcher of `owner` (server/modules/webhooks/leases.ts). */
  liveness(db: Db, opts: LivenessOptions): Liveness;
}

interface LivenessOptions {
  owner: string;
  /** New deliveries may be due (another instance wrote them). */
  onWake: () => void;
  log?: { warn(obj: object, msg: string): void };
}

export interface Liveness {
  /** Resolves once this owner may claim: on PostgreSQL, its liveness lock is held (reconnects if it was lost). */
  ready(): Promise<void>;
  /** Releases the leases of holders that no longer run; returns how many deliveries became claimable. */
  releaseOrphaned(nowIso: string): Promise<number>;
  /** Tells the other instances that deliveries became claimable. */
  announce(): Promise<void>;
  /** Closes what `ready` opened (dropping the liveness lock). */
  close(): Promise<void>;
}
