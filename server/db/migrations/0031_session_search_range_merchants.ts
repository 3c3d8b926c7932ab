import { sql, type Kysely } from 'kysely';
import { ddl } from './ddl';

// Frozen. Issue 18: the session search's FTS5 ranges (0025) hold every merchant's sessions, so a
// search checked each row it found against `checkout_sessions` for the merchant: for a broad text
// 10,000 rowid lookups in the table, 10–25 ms of the search at a million sessions, with one
// merchant in the whole database. Each range now records the merchants whose sessions it indexes
// (a superset: written by the index job and the rebuild as they put rows in, never taken out on a
// delete), so a search skips a range without the merchant and reads a range of that merchant
// alone without the check (server/modules/finance/search-ranges.ts newestMatching).
// Filled here from the table, every range's rowid span read once (about a second per million
// sessions). PostgreSQL: nothing (its search has no ranges).
export async function up(db: Kysely<unknown>): Promise<void> {
  if (ddl(db).pg) return;
  await sql`CREATE TABLE checkout_sessions_search_range_merchants (
    range_id INTEGER NOT NULL,
    merchant_id TEXT NOT NULL,
    PRIMARY KEY (range_id, merchant_id)
  ) STRICT, WITHOUT ROWID`.execute(db);
  await sql`INSERT OR IGNORE INTO checkout_sessions_search_range_merchants (range_id, merchant_id)
    SELECT DISTINCT r.id, s.merchant_id FROM checkout_sessions_search_ranges r
    JOIN checkout_sessions s ON s.rowid > r.lo AND s.rowid <= COALESCE(r.hi, (SELECT indexed_through FROM checkout_sessions_search_mark WHERE id = 1))`.execute(db);
}
