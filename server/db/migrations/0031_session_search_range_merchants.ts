import { sql, type Kysely } from 'kysely';
import { ddl } from './ddl';

// Frozen. The session search's FTS5 ranges (0025) hold every merchant's sessions, so a
// search checked each row it found against `checkout_sessions` for the merchant: for a broad text
// 10,000 rowid lookups in the table, 10–25 ms of the search at a million sessions, with one
// merchant in the whole database. Each range now records the merchants whose sessions it indexes
// (a superset: never taken out on a delete), so a search skips a range without the merchant and
// reads a range of that merchant alone without the check (server/db/search/sqlite-ranges.ts
// newestMatching). The record is kept by triggers, whoever writes the index:
// - `_noted`: when the mark (`indexed_through`) moves up, the sessions it passed (the rows just
//   put in the index, by this version's job, an older server's on the same file, or the rebuild)
//   add their merchants to the ranges holding their rowids;
// - `_moved`: a session's merchant changed by hand (Paydesk never does) adds the new one to the
//   range of its rowid, if it is indexed.
// Filled here from the table, every range's rowid span up to the mark read once (about a second
// per million sessions). PostgreSQL: nothing (its search has no ranges).
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
  await sql`CREATE TRIGGER checkout_sessions_search_range_merchants_noted AFTER UPDATE OF indexed_through ON checkout_sessions_search_mark
    WHEN new.indexed_through > old.indexed_through BEGIN
      INSERT OR IGNORE INTO checkout_sessions_search_range_merchants (range_id, merchant_id)
        SELECT DISTINCT r.id, s.merchant_id FROM checkout_sessions s
        JOIN checkout_sessions_search_ranges r ON s.rowid > r.lo AND (r.hi IS NULL OR s.rowid <= r.hi)
        WHERE s.rowid > old.indexed_through AND s.rowid <= new.indexed_through;
    END`.execute(db);
  await sql`CREATE TRIGGER checkout_sessions_search_range_merchants_moved AFTER UPDATE OF merchant_id ON checkout_sessions
    WHEN new.rowid <= (SELECT indexed_through FROM checkout_sessions_search_mark WHERE id = 1) BEGIN
      INSERT OR IGNORE INTO checkout_sessions_search_range_merchants (range_id, merchant_id)
        SELECT r.id, new.merchant_id FROM checkout_sessions_search_ranges r WHERE new.rowid > r.lo AND (r.hi IS NULL OR new.rowid <= r.hi);
    END`.execute(db);
}
