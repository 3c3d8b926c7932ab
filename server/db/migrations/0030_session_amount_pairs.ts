import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../engine';

// Frozen. The list of one amount (finance/amount-list.ts) reads the amount's sessions
// as (id, created_at) pairs. On PostgreSQL 0011's (merchant_id, amount_minor) index found them
// but read each from the table (2,000 heap pages for one amount at a million sessions); with
// created_at and id in the index the read is index-only (a few leaf pages, once autovacuum has
// marked the pages all-visible). It replaces 0011's index, a prefix of it, which the general
// list's amount condition (server/db/search/ sessionAmount) uses as before.
// SQLite: nothing (its index entries carry the rowid, and a row is one in-process read away).
export async function up(db: Kysely<unknown>): Promise<void> {
  if (!isPostgres(db)) return;
  await sql`CREATE INDEX checkout_sessions_merchant_amount_created ON checkout_sessions (merchant_id, amount_minor, created_at, id)`.execute(db);
  await sql`DROP INDEX checkout_sessions_merchant_amount`.execute(db);
}
