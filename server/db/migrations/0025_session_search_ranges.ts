import { sql, type Kysely } from 'kysely';
import { ddl } from './ddl';

// Frozen. One FTS5 index over every session (0016, 0020) ends with segments as big as
// the table, and a merge step that reaches the biggest one only stops at a term boundary: with
// a common trigram's doclist covering a million rows, single steps cost 40–54 ms of CPU, the
// event-loop stall the sweeper's job must not cause. The index is split into rowid ranges
// ("generations"), an FTS5 table each, so no segment ever holds more than one range's rows
// (server/db/search/sqlite-ranges.ts, sqlite-index.ts):
// - `checkout_sessions_search_ranges`: range `id` indexes the sessions of rowid in (lo, hi]
//   in table `checkout_sessions_search` (id 0, the existing index) or `checkout_sessions_search_<id>`;
//   `hi` is NULL for the open range (the newest, the only one the job writes into); `merged` once
//   a closed range has been merged down to one segment (never again after that).
// - The existing index becomes range 0. Below 200,000 indexed sessions it stays open; from there
//   it is closed at the mark and optimized here, once (the upgrade's cost: about a second of CPU
//   per million sessions already merged, against 20 s or more for a rebuild into ranges), so the
//   job never has to merge it; the next range starts above the mark.
// - Deletes and name changes reach the range holding the row: 0020's triggers are replaced by
//   ones bounded to range 0 (each later range gets its own, made with it).
export async function up(db: Kysely<unknown>): Promise<void> {
  if (ddl(db).pg) return;
  await sql`CREATE TABLE checkout_sessions_search_ranges (id INTEGER PRIMARY KEY, lo INTEGER NOT NULL UNIQUE, hi INTEGER, merged INTEGER NOT NULL DEFAULT 0) STRICT`.execute(db);
  const mark = (await sql<{ m: number }>`SELECT indexed_through AS m FROM checkout_sessions_search_mark WHERE id = 1`.execute(db)).rows[0]?.m ?? 0;
  const closed = mark >= 200_000;
  if (closed) await sql`INSERT INTO checkout_sessions_search (checkout_sessions_search) VALUES ('optimize')`.execute(db);
  await sql`INSERT INTO checkout_sessions_search_ranges (id, lo, hi, merged) VALUES (0, 0, ${closed ? mark : null}, ${closed ? 1 : 0})`.execute(db);
  await sql`DROP TRIGGER checkout_sessions_search_delete`.execute(db);
  await sql`DROP TRIGGER checkout_sessions_search_update`.execute(db);
  const inRange = `old.rowid <= (SELECT indexed_through FROM checkout_sessions_search_mark WHERE id = 1)
    AND old.rowid > (SELECT lo FROM checkout_sessions_search_ranges WHERE id = 0)
    AND old.rowid <= COALESCE((SELECT hi FROM checkout_sessions_search_ranges WHERE id = 0), old.rowid)`;
  await sql`
    CREATE TRIGGER checkout_sessions_search_delete AFTER DELETE ON checkout_sessions
    WHEN ${sql.raw(inRange)} BEGIN
      INSERT INTO checkout_sessions_search (checkout_sessions_search, rowid, customer_name, invoice_ref) VALUES ('delete', old.rowid, old.customer_name, old.invoice_ref);
      UPDATE checkout_sessions_search_mark SET indexed_through = COALESCE((SELECT max(rowid) FROM checkout_sessions), 0) WHERE id = 1 AND indexed_through > COALESCE((SELECT max(rowid) FROM checkout_sessions), 0);
    END`.execute(db);
  await sql`
    CREATE TRIGGER checkout_sessions_search_update AFTER UPDATE OF customer_name, invoice_ref ON checkout_sessions
    WHEN ${sql.raw(inRange)} BEGIN
      INSERT INTO checkout_sessions_search (checkout_sessions_search, rowid, customer_name, invoice_ref) VALUES ('delete', old.rowid, old.customer_name, old.invoice_ref);
      INSERT INTO checkout_sessions_search (rowid, customer_name, invoice_ref) VALUES (new.rowid, new.customer_name, new.invoice_ref);
    END`.execute(db);
}
