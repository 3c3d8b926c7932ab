import { hostname } from 'node:os';
import { sql } from 'kysely';
import type Pg from 'pg';
import { postgresUrlOf, type Db } from '../../db/database';
import { loadPg } from '../../db/postgres';
import { isPostgres } from '../../db/engine';
import type { Clock } from '../../lib/clock';
import { randomBase62 } from '../../lib/ids';
import { operationCounts } from '../../observe';

/**
 * Who holds a delivery lease, and whether that holder still runs (docs/architecture.md,
 * "Several instances").
 *
 * A lease is `claimed_by = owner` plus `locked_until`. When its holder dies (kill -9, a lost
 * machine) the lease would only lapse after the attempt timeout plus the margin; the
 * survivors take it at once when they can tell the holder is gone:
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

/** Advisory-lock class (first int4 key) of the liveness locks: "Pdk". Other locks use the one-bigint form. */
const LIVENESS_LOCK_CLASS = 0x50646b;
/** NOTIFY channel: "deliveries may be due" (outbox.ts sends it in the transaction that writes them). */
export const WAKE_CHANNEL = 'paydesk_webhooks';
/** How often a running dispatcher looks for leases of dead holders. */
export const ORPHAN_CHECK_MS = 2_000;

/** This process's identity in leases: `host:pid:token`. */
function ownerId(): string {
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
  const url = isPostgres(db) ? postgresUrlOf(db) : undefined;
  let client: Pg.Client | undefined;
  let connecting: Promise<void> | undefined;
  let closed = false;

  async function connect(): Promise<void> {
    // keepAlive: a database that vanished without closing the socket is noticed, and reconnected to.
    // connectionTimeoutMillis: a database host that drops packets must not hold shutdown (stop() waits for this tick).
    const c = new (loadPg().Client)({ connectionString: url, application_name: 'paydesk-dispatcher', keepAlive: true, connectionTimeoutMillis: 5_000 });
    const lost = (err?: unknown) => {
      if (client === c) client = undefined;
      if (!closed) opts.log?.warn({ err }, 'webhook dispatcher lost its PostgreSQL listener connection: reconnecting before the next claim');
    };
    c.on('error', lost);
    c.on('end', () => lost());
    c.on('notification', () => opts.onWake());
    await c.connect();
    try {
      const got = await c.query<{ ok: boolean }>('select pg_try_advisory_lock($1, hashtext($2)) as ok', [LIVENESS_LOCK_CLASS, owner]);
      if (!got.rows[0]?.ok) throw new Error(`liveness lock of ${owner} is held elsewhere`);
      await c.query(`listen ${WAKE_CHANNEL}`);
    } catch (err) {
      await c.end().catch(() => undefined);
      throw err;
    }
    if (closed) {
      await c.end().catch(() => undefined);
      return;
    }
    client = c;
  }

  return {
    owner,
    async ready() {
      if (!url || client || closed) return;
      connecting ??= connect().finally(() => (connecting = undefined));
      await connecting;
    },
    async releaseOrphaned() {
      const nowIso = clock.now().toISOString();
      if (url) {
        const res = await sql`
          update webhook_deliveries set claimed_by = null, locked_until = null
          where status = 'pending' and claimed_by is not null and claimed_by <> ${owner} and locked_until > ${nowIso}
            and not exists (
              select 1 from pg_locks l
              where l.locktype = 'advisory' and l.granted and l.objsubid = 2
                and l.classid = ${LIVENESS_LOCK_CLASS}::oid
                and l.database = (select oid from pg_database where datname = current_database())
                and l.objid::bigint = (hashtext(webhook_deliveries.claimed_by)::bigint & 4294967295))`.execute(db);
        const taken = Number(res.numAffectedRows ?? 0);
        operationCounts.leaseTakeovers += taken;
        return taken;
      }
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
      operationCounts.leaseTakeovers += released;
      return released;
    },
    async releaseOwn() {
      const res = await db.updateTable('webhook_deliveries').set({ claimed_by: null, locked_until: null }).where('claimed_by', '=', owner).where('status', '=', 'pending').executeTakeFirst();
      const released = Number(res.numUpdatedRows);
      if (released > 0 && url) await sql`select pg_notify(${WAKE_CHANNEL}, '')`.execute(db);
      return released;
    },
    async close() {
      closed = true;
      await connecting?.catch(() => undefined);
      const c = client;
      client = undefined;
      await c?.end().catch(() => undefined);
    },
  };
}
