import type { Kysely } from 'kysely';
import { ddl } from './ddl';

// Frozen. The first-run setup links (modules/auth/first-run.ts): one row per link printed on a
// database without staff, so that any instance sharing the database accepts a link another
// printed, and a restart does not lose it. Only the SHA-256 of the token is kept; a link works
// until `expires_at`, once (`used_at`).
export async function up(db: Kysely<unknown>): Promise<void> {
  const { table } = ddl(db);
  await table('setup_links')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .execute();
}
