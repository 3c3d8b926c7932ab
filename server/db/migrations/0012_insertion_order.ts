import type { Kysely } from 'kysely';
import { isPostgres } from '../engine';

// Frozen. Lists read by a timestamp must keep rows of one millisecond in the order they were
// written (a sync right after another, a slip deposited again after a rejection, a second API
// key or endpoint made right after the integration): SQLite's implicit rowid says so;
// PostgreSQL has none, so there it is a column of the same name, as 0004 gave the webhook
// tables, and the lists end their ORDER BY with `rowid` on both engines. Nothing changes on SQLite.
const TABLES = ['revenue_line_syncs', 'cash_deposits', 'integrations', 'api_keys', 'webhook_endpoints'];

export async function up(db: Kysely<unknown>): Promise<void> {
  if (!isPostgres(db)) return;
  for (const table of TABLES) {
    await db.schema.alterTable(table).addColumn('rowid', 'bigint', (c) => c.generatedByDefaultAsIdentity().notNull().unique()).execute();
  }
}
