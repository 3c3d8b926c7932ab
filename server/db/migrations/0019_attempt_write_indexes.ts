import { sql, type Kysely } from 'kysely';

// Frozen. Write path: an index entry a row does not need is a page its commit
// writes to the WAL. A Mobile Money attempt is inserted without a prompt expiry (the provider's
// answer brings it), so payment_attempts_pending (prompt_expires_at) WHERE status = 'pending'
// took a NULL entry at the insert and moved it at the answer: two or three pages per attempt
// start for an entry no query reads. Both queries that use the index (the sweeper's due
// prompts and due transfer windows) compare `prompt_expires_at <= now`, which implies
// IS NOT NULL on both engines, so the narrower index serves them as before
// (test/integration/query-plans.test.ts).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('payment_attempts_pending').execute();
  await db.schema
    .createIndex('payment_attempts_pending')
    .on('payment_attempts')
    .column('prompt_expires_at')
    .where((eb) => eb.and([eb(sql.ref('status'), '=', 'pending'), eb(sql.ref('prompt_expires_at'), 'is not', null)]))
    .execute();
}
