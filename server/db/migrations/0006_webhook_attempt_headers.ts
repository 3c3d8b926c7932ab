import type { Kysely } from 'kysely';

// Frozen: each delivery attempt keeps the exact request headers it sent and the receiver's
// response headers (JSON objects of name → value, capped in size by the dispatcher).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('webhook_delivery_attempts').addColumn('request_headers', 'text').execute();
  await db.schema.alterTable('webhook_delivery_attempts').addColumn('response_headers', 'text').execute();
}
