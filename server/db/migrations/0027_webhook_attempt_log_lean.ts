import type { Kysely } from 'kysely';

// Frozen. For the webhook fan-out: each attempt row went into six b-trees. The one on
// (event_id, seq) took its entries on a random page (event ids were random): 0.79 of the 2.7
// WAL pages a delivery wrote, the largest share. An event's attempts are now read through its
// deliveries instead (unique (event_id, endpoint_id), then (delivery_id, seq)): the session
// detail's delivery entries and the delivery log's `event_id` filter
// (test/integration/query-plans.test.ts), so the index is dropped on both engines.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('webhook_delivery_attempts_event').execute();
}
