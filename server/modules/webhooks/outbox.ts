import type { Transaction } from 'kysely';
import { dialectOf } from '../../db/dialect';
import type { Database, EventsTable } from '../../db/schema';
import { afterCommit } from '../../db/after-commit';
import { timeOrderedBase62 } from '../../lib/ids';
import type { EventSink } from '../../domain/session-transitions';
import { WAKE_CHANNEL } from './leases';

/**
 * The durable outbox. A terminal transition writes its `events` row; in that same
 * transaction this hook writes one `webhook_deliveries` row per endpoint of the
 * integration: due at once for an active endpoint, **held** for a disabled one (sent when
 * it is enabled again, hold.ts), so no event is lost to a disabled endpoint. Nothing lives only in memory:
 * a crash before commit loses both, a crash after keeps both, and the dispatcher (any
 * process, after any restart) sends whatever is due.
 *
 * After inserting, the outbox pokes the dispatchers that subscribed to it (one outbox per
 * composed Deps, server/compose.ts: no module-level listeners), through `afterCommit`: after
 * the commit on both engines (on SQLite the group's, server/db/sqlite-group-commit.ts), never
 * for a rolled-back event. On PostgreSQL the same transaction also sends `NOTIFY paydesk_webhooks` (delivered
 * by PostgreSQL at commit, never for a rolled-back one), which wakes every other instance's
 * dispatcher at once (leases.ts LISTENs); elsewhere (SQLite's CLI) the dispatcher's poll
 * (500 ms) finds them.
 */

type Listener = () => void;

/** The outbox of one composed Deps: the domain records events into it, dispatchers listen to it. */
export interface Outbox extends EventSink {
  /** Subscribes to "new deliveries may be due"; returns the unsubscribe function. */
  onWrite(listener: Listener): () => void;
  /** Tells the subscribed dispatchers that deliveries may be due (redelivery, recovery, release from hold). */
  notify(): void;
}

export function createOutbox(): Outbox {
  const listeners = new Set<Listener>();
  const notify = (): void => {
    for (const l of listeners) l();
  };
  return {
    onWrite(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    notify,
    async eventRecorded(trx, event) {
      if (await enqueueDeliveries(trx, event)) {
        await dialectOf(trx).notify(trx, WAKE_CHANNEL);
        afterCommit(trx, notify);
      }
    },
  };
}

/** Time-ordered (ids.ts `timeOrderedBase62`): attempt rows index their delivery id, and deliveries are sent in about their creation order. */
export const newDeliveryId = (): string => `whd_${timeOrderedBase62(24)}`;

/** Writes the event's delivery rows; returns true when one of them is due now (an active endpoint). */
async function enqueueDeliveries(trx: Transaction<Database>, event: EventsTable): Promise<boolean> {
  const endpoints = await trx.selectFrom('webhook_endpoints').select(['id', 'status', 'disabled_reason']).where('integration_id', '=', event.integration_id).execute();
  if (endpoints.length === 0) return false;
  await trx
    .insertInto('webhook_deliveries')
    .values(
      endpoints.map((e) => ({
        id: newDeliveryId(),
        event_id: event.id,
        endpoint_id: e.id,
        integration_id: event.integration_id,
        session_id: event.session_id,
        event_type: event.type,
        status: 'pending' as const,
        attempt_count: 0,
        schedule_step: 0,
        next_attempt_at: e.status === 'active' ? event.created_at : null,
        manual_requested_at: null,
        held_at: e.status === 'active' ? null : event.created_at,
        claimed_by: null,
        locked_until: null,
        last_attempt_at: null,
        last_status_code: null,
        last_error: e.status === 'active' ? null : `held: endpoint disabled: ${e.disabled_reason ?? 'disabled'}`,
        delivered_at: null,
        created_at: event.created_at,
        updated_at: event.created_at,
      })),
    )
    .execute();
  return endpoints.some((e) => e.status === 'active');
}
