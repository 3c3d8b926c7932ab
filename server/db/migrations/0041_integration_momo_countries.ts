import type { Kysely } from 'kysely';

// Frozen. An integration names the Mobile Money countries it serves (a JSON array of ISO 3166
// alpha-2 codes from shared/countries.ts); null, as every integration made before has, serves
// every country of the session's currency. A nullable column: no rewrite on either engine.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('integrations').addColumn('momo_countries', 'text').execute();
}
