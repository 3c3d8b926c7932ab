import { sql, type Kysely } from 'kysely';
import { ddl } from './ddl';

// Frozen. 0031's `_noted` trigger (as released) joined the ranges to the sessions with
// `s.rowid > r.lo AND (r.hi IS NULL OR s.rowid <= r.hi)`, and SQLite planned it range first:
// for each range a rowid scan from its `lo` up to the new mark, whatever the few rows the mark
// just passed. At a million sessions that was 430-620 ms for every index batch (bench:volume),
// on the event loop: the sweeper's index job and every search's catch-up
// stalled the server for half a second, and the index fell 74,000 sessions behind. Now the rows
// the mark passed drive it (CROSS JOIN keeps the sessions outer), and each row's range is the
// one with the greatest `lo` below its rowid, found on the ranges' unique `lo` index: 0.5 ms for
// a 2,000-row batch on the same file. The same ranges and merchants as before (a rowid in no
// range, past its range's `hi`, still adds nothing). PostgreSQL: nothing (no ranges there).
export async function up(db: Kysely<unknown>): Promise<void> {
  if (ddl(db).pg) return;
  // IF EXISTS: a file migrated while 0031 had no triggers yet (a development build of that day) gets it here too.
  await sql`DROP TRIGGER IF EXISTS checkout_sessions_search_range_merchants_noted`.execute(db);
  await sql`CREATE TRIGGER checkout_sessions_search_range_merchants_noted AFTER UPDATE OF indexed_through ON checkout_sessions_search_mark
    WHEN new.indexed_through > old.indexed_through BEGIN
      INSERT OR IGNORE INTO checkout_sessions_search_range_merchants (range_id, merchant_id)
        SELECT DISTINCT r.id, s.merchant_id FROM checkout_sessions s
        CROSS JOIN checkout_sessions_search_ranges r
        WHERE s.rowid > old.indexed_through AND s.rowid <= new.indexed_through
          AND r.id = (SELECT x.id FROM checkout_sessions_search_ranges x WHERE x.lo < s.rowid ORDER BY x.lo DESC LIMIT 1)
          AND (r.hi IS NULL OR s.rowid <= r.hi);
    END`.execute(db);
}
