import { sql, type Kysely } from 'kysely';

// Frozen. For `momo_attempt_create`: an attempt is inserted before its provider is asked,
// with no provider reference yet (''), and the provider's answer writes the reference. The full
// index on provider_reference took an '' entry at the insert and moved it at the answer: an
// index page in each of the attempt start's two commits for an entry no query wants (nobody
// searches for ''). The search by reference (server/db/search/) says
// `provider_reference <> ''` next to its `= q`, so the partial index serves it as before on both
// engines (test/integration/query-plans.test.ts).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('payment_attempts_provider_reference').execute();
  await db.schema
    .createIndex('payment_attempts_provider_reference')
    .on('payment_attempts')
    .column('provider_reference')
    .where(sql.ref('provider_reference'), '<>', '')
    .execute();
}
