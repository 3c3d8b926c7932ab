import { sql, type CompiledQuery, type Kysely } from 'kysely';
import { claimStrategyOf } from '../../db/claim';
import type { Database } from '../../db/schema';
import { padded, padTail, precompiledValuesBySize } from './batch-sql';
import type { Job } from './outcomes';

/**
 * Claiming due deliveries (dispatcher-scheduler.ts): one `UPDATE … RETURNING` takes a lease
 * (claimed_by + locked_until) on at most `limit` due deliveries, skipping those this dispatcher
 * already has in flight (`busy`), then two queries load their events and endpoints. Their `in`
 * lists are padded (batch-sql.ts).
 *
 * The three are compiled by Kysely once per list size (`precompiledValuesBySize`; building the claim
 * was ~5 % of a delivery's CPU), on every handle alike. `claimStatements` gives the statements a
 * claim runs, that text with its values, for test/integration/query-plans.test.ts to explain.
 */

type ClaimParams = { owner: string; now: string; lease: string; limit: number; busy: readonly string[] };

/** The claim's builder: `v` gives every value (real ones, or precompiled's placeholders). */
function claimQuery(db: Kysely<Database>, v: { owner: string; now: string; lease: string; limit: number; busy: readonly string[] }) {
  return db
    .updateTable('webhook_deliveries')
    .set({ claimed_by: v.owner, locked_until: v.lease })
    .where('id', 'in', (eb) => {
      let q = eb
        .selectFrom('webhook_deliveries as c')
        .select('c.id')
        .where('c.status', '=', 'pending')
        .where('c.next_attempt_at', '<=', v.now)
        .where((w) => w.or([w('c.locked_until', 'is', null), w('c.locked_until', '<=', v.now)]))
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
      if (v.busy.length > 0) q = q.where('c.id', 'not in', v.busy);
      const due = q
        .orderBy('c.next_attempt_at')
        .orderBy('c.created_at')
        .orderBy(sql`c.rowid`)
        .limit(v.limit);
      // As the engine takes due rows from several instances (server/db/claim/).
      return claimStrategyOf(db).lockDue(due);
    })
    .returning(['id', 'event_id', 'endpoint_id', 'attempt_count', 'schedule_step', 'manual_requested_at']);
}

const eventsQuery = (db: Kysely<Database>, ids: readonly string[]) => db.selectFrom('events').select(['id', 'type', 'payload']).where('id', 'in', ids);
const endpointsQuery = (db: Kysely<Database>, ids: readonly string[]) =>
  db.selectFrom('webhook_endpoints as w').innerJoin('integrations as i', 'i.id', 'w.integration_id').selectAll('w').select('i.mode').where('w.id', 'in', ids);

/** `n` placeholders `${prefix}0` … of precompiled's `p`. */
const listOf = (p: Record<string, unknown>, prefix: string, n: number) => Array.from({ length: n }, (_, i) => p[`${prefix}${i}`] as string);

/** `${prefix}0` … `${prefix}${n - 1}`. */
const namesOf = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);
// Called with the values themselves (precompiledValues), in these orders.
const claimBySize = precompiledValuesBySize(
  (db, p, n) => claimQuery(db, { owner: p.owner as string, now: p.now as string, lease: p.lease as string, limit: p.limit as number, busy: listOf(p, 'busy', n) }),
  (n) => ['owner', 'now', 'lease', 'limit', ...namesOf('busy', n)],
);
const eventsBySize = precompiledValuesBySize((db, p, n) => eventsQuery(db, listOf(p, 'id', n)), (n) => namesOf('id', n));
const endpointsBySize = precompiledValuesBySize((db, p, n) => endpointsQuery(db, listOf(p, 'id', n)), (n) => namesOf('id', n));

/** The claim's values, in `claimBySize`'s order, the busy list padded; and that list's size. */
function claimValues(opts: ClaimParams): { n: number; values: unknown[] } {
  const values: unknown[] = [opts.owner, opts.now, opts.lease, opts.limit];
  for (const id of opts.busy) values.push(id);
  return { n: padTail(values, 4), values };
}

export async function claimDue(db: Kysely<Database>, opts: ClaimParams): Promise<Job[]> {
  const { n, values } = claimValues(opts);
  const claimed = await claimBySize(db, n, values);
  if (claimed.length === 0) return [];
  const eventIds = padded(new Set(claimed.map((c) => c.event_id)));
  const endpointIds = padded(new Set(claimed.map((c) => c.endpoint_id)));
  const [events, endpoints] = await Promise.all([eventsBySize(db, eventIds.length, eventIds), endpointsBySize(db, endpointIds.length, endpointIds)]);
  const eventById = new Map(events.map((e) => [e.id, e]));
  const endpointById = new Map(endpoints.map((e) => [e.id, e]));
  return claimed.map((c) => ({ ...c, event: eventById.get(c.event_id)!, endpoint: endpointById.get(c.endpoint_id)! }));
}

/**
 * The three statements `claimDue(db, opts)` runs when it claims deliveries of the events
 * `eventIds` and the endpoints `endpointIds`: the text it runs on `db`'s engine, with the values it binds.
 */
export function claimStatements(db: Kysely<Database>, opts: ClaimParams, eventIds: readonly string[], endpointIds: readonly string[]): CompiledQuery[] {
  const { n, values } = claimValues(opts);
  const events = padded(new Set(eventIds));
  const endpoints = padded(new Set(endpointIds));
  return [claimBySize.statement(db, n, values), eventsBySize.statement(db, events.length, events), endpointsBySize.statement(db, endpoints.length, endpoints)];
}
