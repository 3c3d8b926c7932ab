import { sql, type Kysely } from 'kysely';

// Frozen. The language a staff member reads the back office in (`en` or `fr`), chosen in the
// staff menu and applied at every sign-in; null until they choose (the browser's language then).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('staff_users')
    .addColumn('language', 'text', (c) => c.check(sql`language in ('en', 'fr')`))
    .execute();
}
