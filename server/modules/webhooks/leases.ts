import { hostname } from 'node:os';
import { claimStrategyOf } from '../../db/claim';
import type { Db } from '../../db/database';
import type { Clock } from '../../lib/clock';
import { randomBase62 } from '../../lib/ids';
import { operationCounts } from '../../observe';

export { WAKE_CHANNEL } from '../../db/claim';

/**
 * Who holds a delivery lease, and whether that holder still runs (docs/architecture.md,
 * "Several instances").
 *
 * A lease is `claimed_by = owner` plus `locked_until`. When its holder dies (kill -9, a lost
 * machine) the lease would only lapse after the attempt timeout plus the margin; the
 * survivors take it at once when they can tell the holder is gone (the engine's liveness,
 * server/db/claim/):
 * - **PostgreSQL**: every dispatcher keeps one connection outside the pool that holds a session
 *   advisory lock named after its owner id (and LISTENs for new deliveries). PostgreSQL drops
 *   the lock the moment that connection dies, so "a lease whose owner's lock nobody holds" is a
 *   dead instance's lease, on any host. Checked every ORPHAN_CHECK_MS.
 * - **SQLite** (one host): the owner id carries the process id; a pid that no longer runs on
 *   this host is dead.
 * If the dedicated connection itself drops while the process lives, its leases may be taken
 * before they lapse and an attempt in flight may be sent twice: a duplicate only on a failure,
 * which at-least-once delivery allows. The dispatcher claims nothing until the connection is back.
 */

/** How often a running dispatcher looks for leases of dead holders. */
export const ORPHAN_CHECK_MS = 2_000;

/** This process's identity in leases: `host:pid:token`. */
function ownerId(): string {
  return `${hostname()}:${process.pid}:${randomBase62(8)}`;
}

export interface Leases {
  readonly owner: string;
  /** Resolves once this owner may claim: on PostgreSQL, its liveness lock is held (reconnects if it was lost). */
  ready(): Promise<void>;
  /** Releases the leases of holders that no longer run; returns how many deliveries became claimable. */
  releaseOrphaned(): Promise<number>;
  /** Releases every lease this owner still holds (shutdown) and tells the other instances. */
  releaseOwn(): Promise<number>;
  /** Closes the dedicated connection (dropping the liveness lock). */
  close(): Promise<void>;
}

export function createLeases(opts: { db: Db; clock: Clock; onWake: () => void; log?: { warn(obj: object, msg: string): void } }): Leases {
  const { db, clock } = opts;
  const owner = ownerId();
  const liveness = claimStrategyOf(db).liveness(db, { owner, onWake: opts.onWake, log: opts.log });
  return {
    owner,
    ready: () => liveness.ready(),
    async releaseOrphaned() {
      const taken = await liveness.releaseOrphaned(clock.now().toISOString());
      operationCounts.leaseTakeovers += taken;
      return taken;
    },
    async releaseOwn() {
      const res = await db.updateTable('webhook_deliveries').set({ claimed_by: null, locked_until: null }).where('claimed_by', '=', owner).where('status', '=', 'pending').executeTakeFirst();
      const released = Number(res.numUpdatedRows);
      if (released > 0) await liveness.announce();
      return released;
    },
    close: () => liveness.close(),
  };
}
