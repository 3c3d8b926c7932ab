import type { Kysely } from 'kysely';
import { isPostgres } from '../engine';

// Frozen. Two history lists are read newest first by a timestamp, and rows of one millisecond
// (a sync right after another, a slip deposited again after a rejection) must come back in the
// order they were written: SQLite's implicit rowid says so; PostgreSQL has none, so there it is
// a column of the same name, as 0004 gave the webhook tables. Nothing changes on SQLite.
export async function up(db: Kysely<unknown>): Promise<void> {
  if (!isPostgres(db)) return;
  for (const table of ['revenue_line_syncs', 'cash_deposits']) {
    await db.schema.alterTable(table).addColumn('rowid', 'bigint', (c) => c.generatedByDefaultAsIdentity().notNull().unique()).execute();
  }
}
