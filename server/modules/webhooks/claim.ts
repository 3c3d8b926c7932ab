import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../../db/engine';
import type { Database } from '../../db/schema';
import { padded } from './batch-sql';
import type { Claimed, Job } from './outcomes';

/**
 * Claiming due deliveries (dispatcher.ts): one `UPDATE … RETURNING` takes a lease
 * (claimed_by + locked_until) on at most `limit` due deliveries, skipping those this dispatcher
 * already has in flight (`busy`), then two queries load their events and endpoints. Their `in`
 * lists are padded (batch-sql.ts). They are built by Kysely on each call, not precompiled, so
 * test/integration/query-plans.test.ts sees them with their real parameters.
 */
export async function claimDue(db: Kysely<Database>, opts: { owner: string; now: string; lease: string; limit: number; busy: readonly string[] }): Promise<Job[]> {
  const claimed: Claimed[] = await db
    .updateTable('webhook_deliveries')
    .set({ claimed_by: opts.owner, locked_until: opts.lease })
    .where('id', 'in', (eb) => {
      let q = eb
        .selectFrom('webhook_deliveries as c')
        .select('c.id')
        .where('c.status', '=', 'pending')
        .where('c.next_attempt_at', '<=', opts.now)
        .where((w) => w.or([w('c.locked_until', 'is', null), w('c.locked_until', '<=', opts.now)]))
        // Released from hold: only the oldest of its endpoint (in event order, one at a time).
        .where((w) =>
          w.or([
            w('c.held_at', 'is', null),
            w.not(
              w.exists(
                w
                  .selectFrom('webhook_deliveries as p')
                  .select('p.id')
                  .whereRef('p.endpoint_id', '=', 'c.endpoint_id')
                  .where('p.status', '=', 'pending')
                  .where('p.held_at', 'is not', null)
                  .where('p.next_attempt_at', 'is not', null)
                  // Event order: creation time, then insertion order (rowid) for events of the same millisecond.
                  .where(sql<boolean>`(p.created_at < c.created_at or (p.created_at = c.created_at and p.rowid < c.rowid))`),
              ),
            ),
          ]),
        );
      if (opts.busy.length > 0) q = q.where('c.id', 'not in', padded(opts.busy));
      const due = q
        .orderBy('c.next_attempt_at')
        .orderBy('c.created_at')
        .orderBy(sql`c.rowid`)
        .limit(opts.limit);
      // Several instances claim from one PostgreSQL table: rows another instance is claiming
      // right now are skipped, not waited for (SQLite has one writer, so there is no such race).
      return isPostgres(db) ? due.forUpdate().skipLocked() : due;
    })
    .returning(['id', 'event_id', 'endpoint_id', 'attempt_count', 'schedule_step', 'manual_requested_at'])
    .execute();
  if (claimed.length === 0) return [];
  const eventIds = padded([...new Set(claimed.map((c) => c.event_id))]);
  const endpointIds = padded([...new Set(claimed.map((c) => c.endpoint_id))]);
  const [events, endpoints] = await Promise.all([
    db.selectFrom('events').select(['id', 'type', 'payload']).where('id', 'in', eventIds).execute(),
    db.selectFrom('webhook_endpoints as w').innerJoin('integrations as i', 'i.id', 'w.integration_id').selectAll('w').select('i.mode').where('w.id', 'in', endpointIds).execute(),
  ]);
  const eventById = new Map(events.map((e) => [e.id, e]));
  const endpointById = new Map(endpoints.map((e) => [e.id, e]));
  return claimed.map((c) => ({ ...c, event: eventById.get(c.event_id)!, endpoint: endpointById.get(c.endpoint_id)! }));
}
