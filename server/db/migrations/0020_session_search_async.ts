import { sql, type Kysely } from 'kysely';
import { ddl } from './ddl';

// Frozen. The session search's FTS5 table (0016) was written by an insert trigger, so
// every session create paid for its trigram row and, now and then, for an FTS5 segment merge
// inside its commit (the event-loop stall under mixed load). New sessions are indexed from
// then on by a background job in small batches instead (server/db/search/sqlite-index.ts),
// tracked by a high-water mark on checkout_sessions' rowid: every session of rowid ≤
// `indexed_through` is in the index, none above it is. A search first indexes the (normally
// tiny) backlog itself, so what was just written is found. SQLite only: PostgreSQL's pg_trgm
// indexes are part of the table.
// - The mark starts at the newest session: 0016's triggers kept the index complete up to now.
// - No insert trigger; delete and update triggers only touch the index for a row it holds
//   (an unindexed row is read as it is when the job reaches it). A delete of rows at the top
//   lowers the mark to the newest session left, so that a new row reusing their rowid (SQLite
//   gives max(rowid) + 1) is above the mark and gets indexed.
// - `automerge` 0: FTS5 no longer merges segments inside whichever write crosses its work unit;
//   the job runs `merge` in small steps of its own.
export async function up(db: Kysely<unknown>): Promise<void> {
  if (ddl(db).pg) return;
  await sql`CREATE TABLE checkout_sessions_search_mark (id INTEGER PRIMARY KEY CHECK (id = 1), indexed_through INTEGER NOT NULL) STRICT`.execute(db);
  await sql`INSERT INTO checkout_sessions_search_mark (id, indexed_through) VALUES (1, COALESCE((SELECT max(rowid) FROM checkout_sessions), 0))`.execute(db);
  await sql`DROP TRIGGER checkout_sessions_search_insert`.execute(db);
  await sql`DROP TRIGGER checkout_sessions_search_delete`.execute(db);
  await sql`DROP TRIGGER checkout_sessions_search_update`.execute(db);
  await sql`
    CREATE TRIGGER checkout_sessions_search_delete AFTER DELETE ON checkout_sessions
    WHEN old.rowid <= (SELECT indexed_through FROM checkout_sessions_search_mark WHERE id = 1) BEGIN
      INSERT INTO checkout_sessions_search (checkout_sessions_search, rowid, customer_name, invoice_ref) VALUES ('delete', old.rowid, old.customer_name, old.invoice_ref);
      UPDATE checkout_sessions_search_mark SET indexed_through = COALESCE((SELECT max(rowid) FROM checkout_sessions), 0) WHERE id = 1 AND indexed_through > COALESCE((SELECT max(rowid) FROM checkout_sessions), 0);
    END`.execute(db);
  await sql`
    CREATE TRIGGER checkout_sessions_search_update AFTER UPDATE OF customer_name, invoice_ref ON checkout_sessions
    WHEN old.rowid <= (SELECT indexed_through FROM checkout_sessions_search_mark WHERE id = 1) BEGIN
      INSERT INTO checkout_sessions_search (checkout_sessions_search, rowid, customer_name, invoice_ref) VALUES ('delete', old.rowid, old.customer_name, old.invoice_ref);
      INSERT INTO checkout_sessions_search (rowid, customer_name, invoice_ref) VALUES (new.rowid, new.customer_name, new.invoice_ref);
    END`.execute(db);
  await sql`INSERT INTO checkout_sessions_search (checkout_sessions_search, rank) VALUES ('automerge', 0)`.execute(db);
}
