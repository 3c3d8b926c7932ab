import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../engine';

// Frozen. On PostgreSQL a broad search text ("Payer 1", in 111,111 of a million names)
// read every match from 0016's trigram indexes and sorted them all to keep the newest 10,000
// (359 ms), since a trigram index knows nothing of time. The trigram indexes now also hold each
// session's UTC month and day of creation (the first 7 and 10 characters of the ISO
// `created_at`; btree_gin makes plain text keys indexable beside pg_trgm's trigrams), so a
// search can ask for the matches of one month or one day: GIN intersects the day's list with
// the text's trigram lists by skipping, so a day without a match costs a few index pages. A
// broad text is then read day by day, newest first, and stops at the candidate cap
// (server/db/search/); a narrow one still asks the index for the text alone, which these
// indexes serve as 0016's did (a condition on the trigram column only), so 0016's go: one pair
// of GIN entries per session, not two.
// The list then reads its page among those sessions (server/db/search/ `among`): with 10,000
// of them the planner chose a parallel scan of the whole table over 10,000 primary-key lookups
// (400 ms), so the ids come with the span of their `created_at` and the merchant, and the
// merchant's (merchant_id, created_at) index gets `id` at its end: walked backward over that
// span it gives the page's own order (created_at DESC, id DESC, every list's tie-break), so the
// page stops at its LIMIT instead of sorting every candidate (105 -> 5.6 ms at a million,
// measured on a loaded machine). It replaces 0001's index, a prefix of it.
// `fastupdate = off`: with GIN's pending list, the sessions created since the last vacuum sat in
// an unsorted list that every probe of the walk scanned in full, and the planner, pricing that
// list, chose a sequential scan for the month probes: the broad search took 9.1 s at a million
// after 30 s of mixed load, 42-48 ms once the list was merged. Written straight into the index,
// 3,000 session inserts took the same time either way (450 ms, measured on the kept database).
// SQLite: nothing (its FTS5 index walks its rowids newest first already).
export async function up(db: Kysely<unknown>): Promise<void> {
  if (!isPostgres(db)) return;
  // A trusted extension (PostgreSQL 13+), shipped with pg_trgm in contrib: a database owner may create it.
  await sql`CREATE EXTENSION IF NOT EXISTS btree_gin`.execute(db);
  for (const column of ['customer_name', 'invoice_ref']) {
    await sql`CREATE INDEX ${sql.raw(`checkout_sessions_${column}_day_trgm`)} ON checkout_sessions
      USING gin (substr(created_at, 1, 7), substr(created_at, 1, 10), ${sql.raw(column)} gin_trgm_ops) WITH (fastupdate = off)`.execute(db);
    await sql`DROP INDEX ${sql.raw(`checkout_sessions_${column}_trgm`)}`.execute(db);
  }
  await sql`CREATE INDEX checkout_sessions_merchant_created_id ON checkout_sessions (merchant_id, created_at, id)`.execute(db);
  await sql`DROP INDEX checkout_sessions_merchant_created`.execute(db);
}
