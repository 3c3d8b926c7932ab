import { sql, type Kysely } from 'kysely';

// Frozen: each delivery attempt keeps the exact request headers it sent and the receiver's
// response headers (JSON objects of name → value, capped in size by the dispatcher).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE webhook_delivery_attempts ADD COLUMN request_headers TEXT`.execute(db);
  await sql`ALTER TABLE webhook_delivery_attempts ADD COLUMN response_headers TEXT`.execute(db);
}
