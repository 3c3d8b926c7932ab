import { hostname } from 'node:os';
import type { Db } from '../database';
import type { Liveness } from './types';

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Liveness on one host: the owner id is `host:pid:token` (server/modules/webhooks/leases.ts), and
 * a lease whose pid no longer runs on this host is a dead process's.
 */
export const pidLiveness = (db: Db): Liveness => ({
    ready: async () => undefined,
    async releaseOrphaned(nowIso) {
      const held = await db.selectFrom('webhook_deliveries').select('claimed_by').distinct().where('status', '=', 'pending').where('locked_until', '>', nowIso).execute();
      const host = hostname();
      let released = 0;
      for (const { claimed_by } of held) {
        if (!claimed_by) continue;
        const [h, pidText] = claimed_by.split(':');
        const pid = Number(pidText);
        if (h !== host || !Number.isInteger(pid) || pid === process.pid || processAlive(pid)) continue;
        const res = await db.updateTable('webhook_deliveries').set({ claimed_by: null, locked_until: null }).where('claimed_by', '=', claimed_by).where('status', '=', 'pending').executeTakeFirst();
        released += Number(res.numUpdatedRows);
      }
      return released;
    },
    // The dispatchers of this process hear of it through the outbox; there is no other instance.
    announce: async () => undefined,
    close: async () => undefined,
  });
