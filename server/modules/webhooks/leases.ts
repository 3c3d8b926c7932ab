import { hostname } from 'node:os';
import type { Db } from '../../db/database';
import type { Clock } from '../../lib/clock';
import { randomBase62 } from '../../lib/ids';

/**
 * Delivery leases (`claimed_by` + `locked_until`, see dispatcher.ts): who holds one, and
 * giving back those of a process on this host that died mid-attempt, so a restart resends at
 * once instead of waiting for the lease to lapse.
 */

/** This process's identity in leases: `host:pid:token`. */
export function ownerId(): string {
  return `${hostname()}:${process.pid}:${randomBase62(8)}`;
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Leases of a process on this host that no longer runs are released: its attempts are due again now. */
export async function releaseOrphanedLeases(db: Db, clock: Clock): Promise<void> {
  const nowIso = clock.now().toISOString();
  const held = await db
    .selectFrom('webhook_deliveries')
    .select('claimed_by')
    .distinct()
    .where('status', '=', 'pending')
    .where('locked_until', '>', nowIso)
    .execute();
  const host = hostname();
  for (const { claimed_by } of held) {
    if (!claimed_by) continue;
    const [h, pidText] = claimed_by.split(':');
    const pid = Number(pidText);
    if (h !== host || !Number.isInteger(pid) || pid === process.pid || processAlive(pid)) continue;
    await db
      .updateTable('webhook_deliveries')
      .set({ claimed_by: null, locked_until: null })
      .where('claimed_by', '=', claimed_by)
      .where('status', '=', 'pending')
      .execute();
  }
}
