import { sql } from 'kysely';
import type Pg from 'pg';
import { postgresUrlOf } from '../database';
import { loadPg } from '../postgres';
import { pidLiveness } from './pid-liveness';
import type { ClaimStrategy } from './types';

/** Advisory-lock class (first int4 key) of the liveness locks: "Pdk". Other locks use the one-bigint form. */
const LIVENESS_LOCK_CLASS = 0x50646b;
/** NOTIFY channel: "deliveries may be due" (the outbox sends it in the transaction that writes them). */
export const WAKE_CHANNEL = 'paydesk_webhooks';

export const postgresClaim: ClaimStrategy = {
  // Not measured there: each claim takes exactly the free slots.
  defaultAhead: () => 0,
  // Several instances claim from one table: rows another instance is claiming right now are skipped, not waited for.
  lockDue: (due) => due.forUpdate().skipLocked(),
  claimAlone: (db, claim) => claim(db),
  claimsAlongOutcomes: false,
  liveness(db, opts) {
    const { owner } = opts;
    const url = postgresUrlOf(db);
    // A handle derived from the opened one (a test's SQL recorder) has no URL to listen on: its process's liveness.
    if (!url) return pidLiveness(db);
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
      async ready() {
        if (client || closed) return;
        connecting ??= connect().finally(() => (connecting = undefined));
        await connecting;
      },
      async releaseOrphaned(nowIso) {
        const res = await sql`
          update webhook_deliveries set claimed_by = null, locked_until = null
          where status = 'pending' and claimed_by is not null and claimed_by <> ${owner} and locked_until > ${nowIso}
            and not exists (
              select 1 from pg_locks l
              where l.locktype = 'advisory' and l.granted and l.objsubid = 2
                and l.classid = ${LIVENESS_LOCK_CLASS}::oid
                and l.database = (select oid from pg_database where datname = current_database())
                and l.objid::bigint = (hashtext(webhook_deliveries.claimed_by)::bigint & 4294967295))`.execute(db);
        return Number(res.numAffectedRows ?? 0);
      },
      async announce() {
        await sql`select pg_notify(${WAKE_CHANNEL}, '')`.execute(db);
      },
      async close() {
        closed = true;
        await connecting?.catch(() => undefined);
        const c = client;
        client = undefined;
        await c?.end().catch(() => undefined);
      },
    };
  },
};
