import { sql, type Kysely } from 'kysely';
import { ddl } from './ddl';

// Frozen. The back office's session search matched the payer's name and the invoice
// ref with "contains" (`LIKE '%…%'`), which read every session of the merchant: 3–6 s at a
// million sessions. Both columns get a trigram index, so a search of 3 characters or more reads
// only the sessions that have every trigram of the text (server/db/search/):
// - SQLite: an FTS5 table with the trigram tokenizer (case-insensitive), external content over
//   `checkout_sessions` keyed on its rowid (no copy of the text), kept by triggers on insert,
//   delete and an update of either column, and filled from the existing rows here. Should it
//   ever disagree with the table (a restore of the table alone), `INSERT INTO
//   checkout_sessions_search(checkout_sessions_search) VALUES('rebuild')` rebuilds it.
// - PostgreSQL: pg_trgm's GIN indexes on both columns (queried with ILIKE), and a
//   text_pattern_ops index on the id for "the session id's first characters" (`LIKE 'x%'`
//   cannot use the primary key's index unless the database collation is C).
export async function up(db: Kysely<unknown>): Promise<void> {
  if (ddl(db).pg) {
    // A trusted extension (PostgreSQL 13+): a database owner may create it, no superuser needed.
    await sql`CREATE EXTENSION IF NOT EXISTS pg_trgm`.execute(db);
    await sql`CREATE INDEX checkout_sessions_customer_name_trgm ON checkout_sessions USING gin (customer_name gin_trgm_ops)`.execute(db);
    await sql`CREATE INDEX checkout_sessions_invoice_ref_trgm ON checkout_sessions USING gin (invoice_ref gin_trgm_ops)`.execute(db);
    await sql`CREATE INDEX checkout_sessions_id_pattern ON checkout_sessions (id text_pattern_ops)`.execute(db);
    return;
  }
  await sql`
    CREATE VIRTUAL TABLE checkout_sessions_search USING fts5(
      customer_name, invoice_ref,
      content='checkout_sessions', content_rowid='rowid',
      tokenize='trigram case_sensitive 0'
    )`.execute(db);
  await sql`
    CREATE TRIGGER checkout_sessions_search_insert AFTER INSERT ON checkout_sessions BEGIN
      INSERT INTO checkout_sessions_search (rowid, customer_name, invoice_ref) VALUES (new.rowid, new.customer_name, new.invoice_ref);
    END`.execute(db);
  await sql`
    CREATE TRIGGER checkout_sessions_search_delete AFTER DELETE ON checkout_sessions BEGIN
      INSERT INTO checkout_sessions_search (checkout_sessions_search, rowid, customer_name, invoice_ref) VALUES ('delete', old.rowid, old.customer_name, old.invoice_ref);
    END`.execute(db);
  await sql`
    CREATE TRIGGER checkout_sessions_search_update AFTER UPDATE OF customer_name, invoice_ref ON checkout_sessions BEGIN
      INSERT INTO checkout_sessions_search (checkout_sessions_search, rowid, customer_name, invoice_ref) VALUES ('delete', old.rowid, old.customer_name, old.invoice_ref);
      INSERT INTO checkout_sessions_search (rowid, customer_name, invoice_ref) VALUES (new.rowid, new.customer_name, new.invoice_ref);
    END`.execute(db);
  await sql`INSERT INTO checkout_sessions_search (checkout_sessions_search) VALUES ('rebuild')`.execute(db);
}
