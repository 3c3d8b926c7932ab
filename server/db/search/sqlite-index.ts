import { sql } from 'kysely';
import type { Db } from '../database';
import { isPostgres } from '../engine';
import { RANGE_ROWS, openRange, openRangeId, rangeAbove, rangeTable, setMerged, unmergedRange } from './sqlite-ranges';
import { yieldToLoop } from '../../lib/yield-to-loop';

/**
 * The session search's FTS5 trigram table on SQLite (`checkout_sessions_search`, migrations
 * 0016 and 0020) is written here, not by the session's own transaction: a session create no
 * longer pays for its trigram row nor, now and then, for an FTS5 segment merge in its commit
 * (the event-loop stall under mixed load). Every session of rowid ≤
 * `checkout_sessions_search_mark.indexed_through` is in the index and none above it is.
 *
 * - The sweeper runs `indexSearchBacklog` every second: the sessions above the mark in rowid
 *   order, a batch per transaction sized to take about BATCH_TARGET_MS, into the open range of
 *   the index (sqlite-ranges.ts, migration 0025: a table per RANGE_ROWS rowids), then FTS5
 *   `merge` steps of the same size (automerge is off, 0020) on the open range, and on a range
 *   just closed until it is one segment, yielding to the event loop between transactions, until
 *   nothing is left or JOB_BUDGET_MS is spent. A step costs at most a range's worth of merging.
 * - A search first calls `catchUpSearchIndex` (read-your-writes): one indexed read when nothing
 *   is pending, else the backlog in batches, up to CATCH_UP_ROWS rows or CATCH_UP_MS. A
 *   backlog larger than that (a bulk import) is left to the job: the search then serves what is
 *   indexed, and finds the rest within seconds (docs/operations.md, "search index lag").
 * PostgreSQL's pg_trgm indexes are part of the table: nothing to do there.
 */
const BATCH_TARGET_MS = 3;
/** Wall time one sweeper tick gives the index (its transactions, not the yields between them). */
const JOB_BUDGET_MS = 100;
export const CATCH_UP_ROWS = 2_000;
const CATCH_UP_MS = 10;

const FIRST_BATCH = 100;
const MIN_BATCH = 10;
const MAX_BATCH = 2_000;
const FIRST_MERGE_PAGES = 16;
const MIN_MERGE_PAGES = 4;
const MAX_MERGE_PAGES = 256;

/**
 * After restoring `checkout_sessions` alone or a full VACUUM (server stopped), the index is
 * rebuilt from the table by sqlite-ranges.ts's rebuildSearchIndex (`npm run admin --
 * search:rebuild`; bench/volume-seed.ts after its bulk insert).
 */
export { rebuildSearchIndex } from './sqlite-ranges';

/** The next size: what would have taken `BATCH_TARGET_MS`, at most double or half the last one. */
function resize(size: number, ms: number, min: number, max: number): number {
  const aimed = ms > 0 ? (size * BATCH_TARGET_MS) / ms : size * 2;
  return Math.round(Math.min(max, Math.max(min, size / 2, Math.min(aimed, size * 2))));
}

/** Whether sessions wait above the mark: the mark's row and the rowid primary key's last entry. */
async function pending(db: Db): Promise<boolean> {
  const r = await sql<{ mark: number; top: number | null }>`SELECT m.indexed_through AS mark, (SELECT max(rowid) FROM checkout_sessions) AS top FROM checkout_sessions_search_mark m WHERE m.id = 1`.execute(db);
  const row = r.rows[0];
  return row !== undefined && row.top !== null && row.top > row.mark;
}

/**
 * Indexes up to `limit` sessions above the mark in one transaction, into the range that holds
 * them (sqlite-ranges.ts): never past the open range's RANGE_ROWS rowids; a full range is closed
 * and the next made first. Returns how many.
 */
async function indexBatch(db: Db, limit: number, rangeRows: number): Promise<number> {
  return db.transaction().execute(async (trx) => {
    let mark = (await sql<{ m: number }>`SELECT indexed_through AS m FROM checkout_sessions_search_mark WHERE id = 1`.execute(trx)).rows[0]?.m ?? 0;
    const next = (await sql<{ n: number | null }>`SELECT min(rowid) AS n FROM checkout_sessions WHERE rowid > ${mark}`.execute(trx)).rows[0]?.n ?? null;
    if (next === null) return 0;
    for (;;) {
      const range = await rangeAbove(trx, mark);
      const end = range.hi ?? range.lo + rangeRows;
      if (next > end) {
        // This range is full (no session left between the mark and its end): the next one, made if none is.
        if ((await rangeAbove(trx, end)).id === range.id) await openRange(trx, end);
        mark = end;
        await sql`UPDATE checkout_sessions_search_mark SET indexed_through = ${mark} WHERE id = 1`.execute(trx);
        continue;
      }
      const upto = (await sql<{ u: number }>`SELECT max(rowid) AS u FROM (SELECT rowid FROM checkout_sessions WHERE rowid > ${mark} AND rowid <= ${end} ORDER BY rowid LIMIT ${limit})`.execute(trx)).rows[0]!.u;
      const t = sql.raw(rangeTable(range.id));
      const r = await sql`INSERT INTO ${t} (rowid, customer_name, invoice_ref) SELECT rowid, customer_name, invoice_ref FROM checkout_sessions WHERE rowid > ${mark} AND rowid <= ${upto}`.execute(trx);
      await sql`UPDATE checkout_sessions_search_mark SET indexed_through = ${upto} WHERE id = 1`.execute(trx);
      return Number(r.numAffectedRows ?? 0);
    }
  });
}

/**
 * One FTS5 `merge` step of about `pages` pages on range `id`'s table; false when there was
 * nothing to merge. Negative `pages` merges whatever the levels (FTS5 then works towards one
 * segment, as 'optimize' does at once): how a closed range is finished.
 */
async function mergeStep(db: Db, id: number, pages: number): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const changes = sql<{ n: number }>`SELECT total_changes() AS n`;
    const t = sql.raw(rangeTable(id));
    const before = (await changes.execute(trx)).rows[0]!.n;
    await sql`INSERT INTO ${t} (${t}, rank) VALUES ('merge', ${pages})`.execute(trx);
    // FTS5's documented test: fewer than 2 changes means the command found nothing to merge.
    return (await changes.execute(trx)).rows[0]!.n - before >= 2;
  });
}

export interface IndexRun {
  /** Sessions indexed. */
  indexed: number;
  /** Whether sessions are still above the mark (the budget or row cap ran out first). */
  behind: boolean;
  /** FTS5 merge steps that did work. */
  merges: number;
}

/**
 * Indexes the sessions above the mark in batches until none are left, `maxRows` are done or
 * `budgetMs` of wall time is spent; then, when `merge` is set and the budget allows, runs
 * merge steps until FTS5 has nothing to merge. Yields to the event loop between transactions.
 */
export async function indexSearchBacklog(db: Db, opts: { budgetMs?: number; maxRows?: number; merge?: boolean; rangeRows?: number } = {}): Promise<IndexRun> {
  const run: IndexRun = { indexed: 0, behind: false, merges: 0 };
  if (isPostgres(db)) return run;
  const start = performance.now();
  const budget = opts.budgetMs ?? JOB_BUDGET_MS;
  const deadline = start + budget;
  // With merges to run, indexing stops at 70 % of the budget: a long backlog (a bulk import)
  // still gets its segments merged as it goes, never all at once in one crisis merge.
  const indexDeadline = opts.merge ? start + budget * 0.7 : deadline;
  const maxRows = opts.maxRows ?? Number.POSITIVE_INFINITY;
  const rangeRows = opts.rangeRows ?? RANGE_ROWS;
  let size = FIRST_BATCH;
  if (await pending(db)) {
    for (;;) {
      const t0 = performance.now();
      const n = await indexBatch(db, Math.min(size, maxRows - run.indexed), rangeRows);
      run.indexed += n;
      if (n === 0) break;
      const t1 = performance.now();
      size = resize(size, t1 - t0, MIN_BATCH, MAX_BATCH);
      if (run.indexed >= maxRows || t1 >= indexDeadline) {
        run.behind = await pending(db);
        break;
      }
      await yieldToLoop();
    }
  }
  if (!opts.merge) return run;
  // The open range's segments as they come (FTS5 merges 4 of a level), then a closed range's
  // down to one segment, once (`merged`); each step bounded by a range's size.
  let target: { id: number; closed: boolean } | null = null;
  let pages = FIRST_MERGE_PAGES;
  const next = async () => {
    const open = target === null ? await openRangeId(db) : null;
    if (open !== null) return { id: open, closed: false };
    const closed = await unmergedRange(db);
    return closed ? { id: closed.id, closed: true } : null;
  };
  target = await next();
  while (target !== null && performance.now() < deadline) {
    await yieldToLoop();
    const t0 = performance.now();
    if (await mergeStep(db, target.id, target.closed ? -pages : pages)) {
      run.merges++;
      pages = resize(pages, performance.now() - t0, MIN_MERGE_PAGES, MAX_MERGE_PAGES);
      continue;
    }
    if (target.closed) await setMerged(db, target.id);
    pages = FIRST_MERGE_PAGES;
    target = await next();
  }
  return run;
}

/** Before a search: the backlog indexed now, within CATCH_UP_ROWS / CATCH_UP_MS (what was just written is found). */
export const catchUpSearchIndex = (db: Db) => indexSearchBacklog(db, { budgetMs: CATCH_UP_MS, maxRows: CATCH_UP_ROWS });

/** The sweeper's job: the backlog, then merge steps, within JOB_BUDGET_MS. */
export const searchIndexJob = (db: Db) => () => indexSearchBacklog(db, { merge: true });
