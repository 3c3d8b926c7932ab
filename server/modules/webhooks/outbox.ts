import type { Transaction } from 'kysely';
import type { Database, EventsTable } from '../../db/schema';
import { randomBase62 } from '../../lib/ids';
import { onEventRecorded } from '../../domain/session-transitions';

/**
 * The durable outbox. A terminal transition writes its `events` row; in that same
 * transaction this hook writes one `webhook_deliveries` row per endpoint of the
 * integration: due at once for an active endpoint, **held** for a disabled one (sent when
 * it is enabled again, hold.ts), so no event is lost to a disabled endpoint. Nothing lives only in memory:
 * a crash before commit loses both, a crash after keeps both, and the dispatcher (any
 * process, after any restart) sends whatever is due.
 *
 * After inserting, the hook pokes the in-process dispatchers. The poke runs inside the
 * transaction, but the dispatcher's next query waits for the connection, which the
 * transaction holds until it commits (better-sqlite3 behind Kysely uses one connection
 * with a mutex), so the dispatcher always sees the committed rows; a rolled-back event
 * leaves nothing to find. Other processes (the CLI) are seen by the dispatcher's poll.
 */

type Listener = () => void;
const listeners = new Set<Listener>();

/** Subscribes to "new deliveries may be due"; returns the unsubscribe function. */
export function onOutboxWrite(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function notifyOutboxWrite(): void {
  for (const l of listeners) l();
}

export const newDeliveryId = (): string => `whd_${randomBase62(24)}`;

export async function enqueueDeliveries(trx: Transaction<Database>, event: EventsTable): Promise<number> {
  const endpoints = await trx.selectFrom('webhook_endpoints').select(['id', 'status', 'disabled_reason']).where('integration_id', '=', event.integration_id).execute();
  if (endpoints.length === 0) return 0;
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
  if (endpoints.some((e) => e.status === 'active')) notifyOutboxWrite();
  return endpoints.length;
}

/** Registers the outbox hook with the transition layer (idempotent: build() calls it every time). */
export function installWebhookOutbox(): void {
  onEventRecorded(outboxHook);
}

const outboxHook = async (trx: Transaction<Database>, event: EventsTable): Promise<void> => {
  await enqueueDeliveries(trx, event);
};
