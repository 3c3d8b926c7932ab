import type { Transaction } from 'kysely';
import type { Database } from '../../db/schema';
import type { Db } from '../../db/database';

/**
 * Held deliveries (docs/webhooks.md "Disabled endpoints and held deliveries"). While an
 * endpoint is disabled — by a 410 from its receiver or by an operator — its deliveries are
 * kept, not failed and not skipped: status `pending`, `held_at` set, `next_attempt_at` null,
 * so the dispatcher never claims them. Events recorded meanwhile get a held delivery too
 * (outbox.ts). Enabling the endpoint releases them: due at once, sent one at a time per
 * endpoint in event order (the claim rule in claim.ts), on a fresh retry schedule.
 */

/** Holds the endpoint's pending deliveries that no attempt is in flight for (those hold themselves when they finish). */
export async function holdPendingDeliveries(trx: Transaction<Database>, endpointId: string, reason: string, now: Date): Promise<number> {
  const nowIso = now.toISOString();
  const r = await trx
    .updateTable('webhook_deliveries')
    .set({ held_at: nowIso, next_attempt_at: null, last_error: `held: endpoint disabled: ${reason}`, updated_at: nowIso })
    .where('endpoint_id', '=', endpointId)
    .where('status', '=', 'pending')
    .where('next_attempt_at', 'is not', null)
    .where((w) => w.or([w('claimed_by', 'is', null), w('locked_until', '<=', nowIso)]))
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
}

/** Makes the endpoint's held deliveries due now; returns how many. */
export async function releaseHeldDeliveries(db: Db | Transaction<Database>, endpointId: string, now: Date): Promise<number> {
  const nowIso = now.toISOString();
  const r = await db
    .updateTable('webhook_deliveries')
    .set({ next_attempt_at: nowIso, schedule_step: 0, last_error: null, updated_at: nowIso })
    .where('endpoint_id', '=', endpointId)
    .where('status', '=', 'pending')
    .where('held_at', 'is not', null)
    .where('next_attempt_at', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
}
