import { sql, type Kysely } from 'kysely';
import type BetterSqlite3 from 'better-sqlite3';
import type { Database } from '../schema';

/**
 * SQLite: the session search's FTS5 index split into rowid ranges ("generations", migration
 * 0025). Range `id` holds the sessions of rowid in (lo, hi] in its own FTS5 table (external
 * content over `checkout_sessions`, like 0016's); the newest is open (`hi` NULL) and is the only
 * one the job writes into (sqlite-index.ts), until it spans RANGE_ROWS rowids: then it is closed
 * at the mark, the next one is made in the same transaction, and the closed one is merged down to
 * one segment in bounded steps, once. So no FTS5 segment ever holds more than RANGE_ROWS rows,
 * and the longest merge step is that of a range, not of the whole table (a step at a
 * million rows cost 40–54 ms of CPU; one at 200,000 a fifth of it).
 * A search reads the ranges newest first and stops at its limit (newestMatching): the same rows,
 * in the same order, as one index read `ORDER BY rowid DESC LIMIT n`.
 * Each range records the merchants whose sessions it indexes (migration 0031,
 * `checkout_sessions_search_range_merchants`), written by a trigger (0032's, reading only the
 * rows the mark passed) as the mark moves past the rows put in (indexBatch, the rebuild, an
 * older server's job) and never taken out: a superset, so a range without the merchant holds
 * none of its sessions, and every session of a range whose only merchant it is is the merchant's.
 */
export const RANGE_ROWS = 200_000;

export interface Range {
  id: number;
  lo: number;
  hi: number | null;
}

/** The FTS5 table of range `id` (0 is 0016's table). Only ever an integer: safe to splice into SQL. */
export const rangeTable = (id: number) => (id === 0 ? 'checkout_sessions_search' : `checkout_sessions_search_${Math.trunc(id)}`);

/** What makes range `id` (its table, automerge off, its delete and update triggers); range 0's are 0025's. */
function rangeDdl(id: number): string[] {
  const t = rangeTable(id);
  const inRange = `old.rowid <= (SELECT indexed_through FROM checkout_sessions_search_mark WHERE id = 1)
    AND old.rowid > (SELECT lo FROM checkout_sessions_search_ranges WHERE id = ${id})
    AND old.rowid <= COALESCE((SELECT hi FROM checkout_sessions_search_ranges WHERE id = ${id}), old.rowid)`;
  return [
    `CREATE VIRTUAL TABLE ${t} USING fts5(customer_name, invoice_ref, content='checkout_sessions', content_rowid='rowid', tokenize='trigram case_sensitive 0')`,
    `INSERT INTO ${t} (${t}, rank) VALUES ('automerge', 0)`,
    `CREATE TRIGGER ${t}_delete AFTER DELETE ON checkout_sessions WHEN ${inRange} BEGIN
      INSERT INTO ${t} (${t}, rowid, customer_name, invoice_ref) VALUES ('delete', old.rowid, old.customer_name, old.invoice_ref);
      UPDATE checkout_sessions_search_mark SET indexed_through = COALESCE((SELECT max(rowid) FROM checkout_sessions), 0) WHERE id = 1 AND indexed_through > COALESCE((SELECT max(rowid) FROM checkout_sessions), 0);
    END`,
    `CREATE TRIGGER ${t}_update AFTER UPDATE OF customer_name, invoice_ref ON checkout_sessions WHEN ${inRange} BEGIN
      INSERT INTO ${t} (${t}, rowid, customer_name, invoice_ref) VALUES ('delete', old.rowid, old.customer_name, old.invoice_ref);
      INSERT INTO ${t} (rowid, customer_name, invoice_ref) VALUES (new.rowid, new.customer_name, new.invoice_ref);
    END`,
  ];
}

type Exec = Kysely<Database>;

/** The range the sessions above `mark` go into: the one whose (lo, hi] holds mark + 1 (the last made, unless deletes lowered the mark). */
export async function rangeAbove(db: Exec, mark: number): Promise<Range> {
  const r = await sql<Range>`SELECT id, lo, hi FROM checkout_sessions_search_ranges WHERE lo <= ${mark} ORDER BY lo DESC LIMIT 1`.execute(db);
  return r.rows[0]!;
}

/** Closes the open range at `lo` and makes the next one, open from `lo` (in the caller's transaction). */
export async function openRange(trx: Exec, lo: number): Promise<Range> {
  await sql`UPDATE checkout_sessions_search_ranges SET hi = ${lo} WHERE hi IS NULL`.execute(trx);
  const id = ((await sql<{ id: number }>`SELECT max(id) + 1 AS id FROM checkout_sessions_search_ranges`.execute(trx)).rows[0]?.id ?? 1);
  for (const stmt of rangeDdl(id)) await sql.raw(stmt).execute(trx);
  await sql`INSERT INTO checkout_sessions_search_ranges (id, lo, hi, merged) VALUES (${id}, ${lo}, NULL, 0)`.execute(trx);
  return { id, lo, hi: null };
}

/** A closed range not yet merged down to one segment (the oldest first), or none. */
export async function unmergedRange(db: Exec): Promise<Range | null> {
  const r = await sql<Range>`SELECT id, lo, hi FROM checkout_sessions_search_ranges WHERE merged = 0 AND hi IS NOT NULL ORDER BY id LIMIT 1`.execute(db);
  return r.rows[0] ?? null;
}

export const setMerged = (db: Exec, id: number) => sql`UPDATE checkout_sessions_search_ranges SET merged = 1 WHERE id = ${id}`.execute(db);

/** The open range (the newest), whose segments the job merges as it writes. */
export async function openRangeId(db: Exec): Promise<number | null> {
  const r = await sql<{ id: number }>`SELECT id FROM checkout_sessions_search_ranges WHERE hi IS NULL`.execute(db);
  return r.rows[0]?.id ?? null;
}

/**
 * The merchant's newest `limit` sessions whose text matches the FTS5 expression `match`: each
 * range newest first, `ORDER BY rowid DESC` in it, until `limit` rows are found. The ranges hold
 * disjoint, ordered rowid spans, so this is exactly one index's `ORDER BY rowid DESC LIMIT limit`.
 */
export async function newestMatching(db: Exec, match: string, merchantId: string, limit: number): Promise<{ rows: Array<{ k: number; created_at?: string }> }> {
  const ranges = (await sql<{ id: number }>`SELECT id FROM checkout_sessions_search_ranges ORDER BY lo DESC`.execute(db)).rows;
  const rows: Array<{ k: number }> = [];
  const merchants = sql.raw('checkout_sessions_search_range_merchants');
  for (const { id } of ranges) {
    const t = sql.raw(rangeTable(id));
    // By the range's merchants (0031), read in the same statement as its rows, so an index batch committed meanwhile
    // cannot make them disagree: a range without the merchant is not read (SQLite tests a constant condition before
    // the loop), and in a range of the merchant alone no row is looked up in the table (10,000 for a broad text).
    const found = await sql<{ k: number }>`SELECT f.rowid AS k FROM ${t} f
      WHERE EXISTS (SELECT 1 FROM ${merchants} rm WHERE rm.range_id = ${id} AND rm.merchant_id = ${merchantId})
        AND ${t} MATCH ${match}
        AND (NOT EXISTS (SELECT 1 FROM ${merchants} rm WHERE rm.range_id = ${id} AND rm.merchant_id <> ${merchantId})
          OR EXISTS (SELECT 1 FROM checkout_sessions h WHERE h.rowid = f.rowid AND h.merchant_id = ${merchantId}))
      ORDER BY f.rowid DESC LIMIT ${limit - rows.length}`.execute(db);
    rows.push(...found.rows);
    if (rows.length >= limit) break;
  }
  return { rows };
}

/**
 * The index rebuilt from the table (server stopped, or the volume seed after its bulk insert),
 * in one transaction: every range but 0 dropped, then every RANGE_ROWS rowids a range filled
 * and merged to one segment, the last left open, and the mark set to the newest session.
 * About 20 s per million sessions (docs/operations.md).
 */
export function rebuildSearchIndex(sqlite: BetterSqlite3.Database, rangeRows = RANGE_ROWS): void {
  sqlite.transaction(() => {
    const ids = sqlite.prepare(`SELECT id FROM checkout_sessions_search_ranges WHERE id > 0`).pluck().all() as number[];
    for (const id of ids) {
      const t = rangeTable(id);
      sqlite.exec(`DROP TRIGGER IF EXISTS ${t}_delete; DROP TRIGGER IF EXISTS ${t}_update; DROP TABLE ${t};`);
    }
    sqlite.exec(`DELETE FROM checkout_sessions_search_ranges WHERE id > 0; UPDATE checkout_sessions_search_ranges SET lo = 0, hi = NULL, merged = 0 WHERE id = 0`);
    // The mark from 0: its move to the newest session at the end records every range's merchants (the `_noted` trigger, 0032).
    sqlite.exec(`DELETE FROM checkout_sessions_search_range_merchants; UPDATE checkout_sessions_search_mark SET indexed_through = 0 WHERE id = 1`);
    sqlite.exec(`INSERT INTO checkout_sessions_search (checkout_sessions_search) VALUES ('delete-all')`);
    const top = (sqlite.prepare(`SELECT COALESCE(max(rowid), 0) FROM checkout_sessions`).pluck().get() as number);
    for (let id = 0, lo = 0; ; id++, lo += rangeRows) {
      const t = rangeTable(id);
      if (id > 0) {
        sqlite.prepare(`UPDATE checkout_sessions_search_ranges SET hi = ?, merged = 1 WHERE id = ?`).run(lo, id - 1);
        for (const stmt of rangeDdl(id)) sqlite.exec(stmt);
        sqlite.prepare(`INSERT INTO checkout_sessions_search_ranges (id, lo, hi, merged) VALUES (?, ?, NULL, 0)`).run(id, lo);
      }
      sqlite.prepare(`INSERT INTO ${t} (rowid, customer_name, invoice_ref) SELECT rowid, customer_name, invoice_ref FROM checkout_sessions WHERE rowid > ? AND rowid <= ?`).run(lo, lo + rangeRows);
      sqlite.exec(`INSERT INTO ${t} (${t}) VALUES ('optimize')`);
      if (lo + rangeRows >= top) break;
    }
    sqlite.prepare(`UPDATE checkout_sessions_search_mark SET indexed_through = ? WHERE id = 1`).run(top);
  })();
}
