import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type SQLite from 'better-sqlite3';
import { Migrator } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, openDatabase } from '../../server/db/database';
import { migrations } from '../../server/db/migrations/index';
import { sessionSearchOf } from '../../server/db/search';
import { indexSearchBacklog } from '../../server/db/search/sqlite-index';
import { openRange, rangeTable, rebuildSearchIndex } from '../../server/db/search/sqlite-ranges';
import type { CreatedIntegration } from '../../server/modules/integrations/integrations.service';
import { createTestApp, type TestContext } from '../support/app';
import { call, staff, type Staff } from '../support/backoffice';
import { openSession } from '../support/checkout';
import { onPostgres } from '../support/database';

/**
 * On SQLite the session search's FTS5 index is a table per rowid range (migration
 * 0025, server/db/search/sqlite-ranges.ts), so that no merge step ever works on more than
 * one range's rows. Here the ranges are 4 rowids wide (`rangeRows`), so a few sessions cross
 * several: what a search finds, in what order, up to what cap, must be what one index gave.
 */
const RANGE = 4;

type Row = { id: number; lo: number; hi: number | null; merged: number };
const ranges = (s: SQLite.Database) => s.prepare(`SELECT id, lo, hi, merged FROM checkout_sessions_search_ranges ORDER BY lo`).all() as Row[];
const mark = (s: SQLite.Database) => s.prepare(`SELECT indexed_through FROM checkout_sessions_search_mark`).pluck().get() as number;
const topRowid = (s: SQLite.Database) => s.prepare(`SELECT COALESCE(max(rowid), 0) FROM checkout_sessions`).pluck().get() as number;
/** The rowids range `id`'s table holds for an FTS5 phrase. */
const inTable = (s: SQLite.Database, id: number, phrase: string) => {
  const t = rangeTable(id);
  return s.prepare(`SELECT rowid FROM ${t} WHERE ${t} MATCH ? ORDER BY rowid`).pluck().all(`"${phrase}"`) as number[];
};
/** The merchants range `id` records (0031), and those of the sessions it indexes. */
const recorded = (s: SQLite.Database, id: number) =>
  s.prepare(`SELECT merchant_id FROM checkout_sessions_search_range_merchants WHERE range_id = ? ORDER BY merchant_id`).pluck().all(id) as string[];
const indexedMerchants = (s: SQLite.Database, r: Row) =>
  s.prepare(`SELECT DISTINCT merchant_id FROM checkout_sessions WHERE rowid > ? AND rowid <= min(?, ?) ORDER BY merchant_id`).pluck().all(r.lo, r.hi ?? Number.MAX_SAFE_INTEGER, mark(s)) as string[];
/** Every range's structure checked (rank 0: a range holds a part of the content table, not all of it). */
const integrity = (s: SQLite.Database) => {
  for (const r of ranges(s)) s.prepare(`INSERT INTO ${rangeTable(r.id)} (${rangeTable(r.id)}, rank) VALUES ('integrity-check', 0)`).run();
};
/** What one index gave: the merchant's newest sessions whose name or ref contains `text`, by rowid. */
const reference = (s: SQLite.Database, merchantId: string, text: string, limit: number) =>
  s
    .prepare(`SELECT rowid FROM checkout_sessions WHERE merchant_id = ? AND rowid <= ? AND (instr(lower(customer_name), ?) OR instr(lower(invoice_ref), ?)) ORDER BY rowid DESC LIMIT ?`)
    .pluck()
    .all(merchantId, mark(s), text.toLowerCase(), text.toLowerCase(), limit) as number[];

function bulkSessions(s: SQLite.Database, templateId: string, n: number, prefix: string, name: string): void {
  const cols = (s.prepare(`SELECT name FROM pragma_table_info('checkout_sessions')`).all() as Array<{ name: string }>).map((c) => c.name);
  const values = cols.map((c) => (c === 'id' ? `'${prefix}-' || i` : c === 'customer_name' ? `'${name} ' || i` : c === 'invoice_ref' ? `'${prefix}-REF-' || i` : `t.${c}`));
  s.prepare(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?) INSERT INTO checkout_sessions (${cols.join(', ')}) SELECT ${values.join(', ')} FROM n, (SELECT * FROM checkout_sessions WHERE id = ?) t`).run(n, templateId);
}

describe.skipIf(onPostgres)('the session search index in rowid ranges (0025)', () => {
  let t: TestContext;
  let m: CreatedIntegration;
  let other: CreatedIntegration;
  let fin: Staff;
  let s: SQLite.Database;
  let template: string;
  const job = (opts: { maxRows?: number; merge?: boolean; budgetMs?: number } = {}) => indexSearchBacklog(t.database.db, { budgetMs: 60_000, merge: true, rangeRows: RANGE, ...opts });
  const search = async (qs: string) => {
    const res = await call(t, fin, 'GET', `/sessions?${qs}&limit=100`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as { sessions: Array<{ id: string }>; total: number; total_capped: boolean };
  };
  const hits = (text: string, cap: number, merchantId = m.merchant_id) => sessionSearchOf(t.database.db).hits(t.database.db, text, { merchantId, cap, now: Date.now() });

  beforeAll(async () => {
    t = await createTestApp();
    s = t.database.sqlite;
    m = await t.merchant('Range Merchant');
    other = await t.merchant('Other Range Merchant');
    fin = await staff(t, 'finance', { merchantId: m.merchant_id });
    template = (await openSession(t, m, { invoice_ref: 'RANGE-TEMPLATE', customer: { name: 'Oldest Unique' } })).id;
    const otherTemplate = (await openSession(t, other, { invoice_ref: 'RANGE-OTHER' })).id;
    // Sessions of both merchants interleaved across ranges.
    for (let i = 0; i < 3; i++) {
      bulkSessions(s, template, 5, `a${i}`, 'Ranged Payer');
      bulkSessions(s, otherTemplate, 2, `o${i}`, 'Ranged Payer');
    }
    await job();
  });
  afterAll(async () => t?.close());

  it('closes a range every RANGE rowids, the ranges contiguous, each closed one merged once; every session in the range of its rowid', async () => {
    const rs = ranges(s);
    expect(rs.length).toBeGreaterThanOrEqual(5);
    expect(mark(s)).toBe(topRowid(s));
    rs.forEach((r, i) => {
      if (i > 0) expect(r.lo).toBe(rs[i - 1]!.hi);
      if (i < rs.length - 1) expect([r.hi! - r.lo, r.merged]).toEqual([RANGE, 1]);
      else expect(r.hi).toBeNull();
    });
    const all = reference(s, m.merchant_id, 'ranged payer', 1_000).concat(reference(s, other.merchant_id, 'ranged payer', 1_000));
    expect(all).toHaveLength(21);
    for (const r of rs) {
      const held = inTable(s, r.id, 'ranged payer');
      expect(held.every((rowid) => rowid > r.lo && rowid <= (r.hi ?? r.lo + RANGE))).toBe(true);
      expect(held).toEqual(all.filter((rowid) => rowid > r.lo && rowid <= (r.hi ?? Infinity)).sort((a, b) => a - b));
    }
    // Nothing left: the job finds nothing to index or merge.
    expect(await job()).toEqual({ indexed: 0, behind: false, merges: 0 });
    integrity(s);
  });

  it('records the merchants each range indexes (0031): ranges of one merchant and of both, which the search reads without and with the merchant check', async () => {
    const rs = ranges(s);
    for (const r of rs) expect({ id: r.id, merchants: recorded(s, r.id) }).toEqual({ id: r.id, merchants: indexedMerchants(s, r) });
    const only = (id: string) => rs.filter((r) => recorded(s, r.id).join() === id);
    // Both kinds are there, so the cap checks below cross both reads, for each merchant.
    expect(only(m.merchant_id).length).toBeGreaterThan(0);
    expect(rs.filter((r) => recorded(s, r.id).length === 2).length).toBeGreaterThan(0);
    for (let cap = 1; cap <= 8; cap++) {
      expect((await hits('ranged payer', cap, other.merchant_id)).keys).toEqual(reference(s, other.merchant_id, 'ranged payer', cap));
    }
    // A range recording the merchant alone is read without the check: a row of another merchant put in its
    // FTS5 table behind the job's back (never done by Paydesk) is then found, which proves the check is skipped.
    const mine = only(m.merchant_id).at(-1)!;
    const stray = reference(s, other.merchant_id, 'ranged payer', 1)[0]!;
    const t = rangeTable(mine.id);
    s.prepare(`INSERT INTO ${t} (rowid, customer_name, invoice_ref) VALUES (?, 'Stray Probe', 'STRAY')`).run(stray);
    try {
      expect((await hits('stray probe', 10)).keys).toEqual([stray]);
      expect((await hits('stray probe', 10, other.merchant_id)).keys).toEqual([]);
    } finally {
      s.prepare(`INSERT INTO ${t} (${t}, rowid, customer_name, invoice_ref) VALUES ('delete', ?, 'Stray Probe', 'STRAY')`).run(stray);
    }
    integrity(s);
  });

  it('finds a match in the oldest range, and reads the ranges newest first up to the cap: the rows and order of one index', async () => {
    expect((await search('q=oldest%20unique')).sessions.map((x) => x.id)).toEqual([template]);
    const found = await search('q=ranged%20payer');
    expect([found.total, found.total_capped]).toEqual([15, false]);
    expect(found.sessions.map((x) => x.id).sort()).toEqual([0, 1, 2].flatMap((i) => [1, 2, 3, 4, 5].map((j) => `a${i}-${j}`)).sort());
    // Every cap: reached inside the newest range, at a boundary, in an older one, or never.
    for (let cap = 1; cap <= 16; cap++) {
      const h = await hits('ranged payer', cap);
      const want = reference(s, m.merchant_id, 'ranged payer', cap + 1);
      expect({ cap, keys: h.keys, capped: h.capped }).toEqual({ cap, keys: want.slice(0, cap), capped: want.length > cap });
    }
    expect((await hits('REF-1', 2, other.merchant_id)).keys).toEqual(reference(s, other.merchant_id, 'ref-1', 2));
    expect(reference(s, other.merchant_id, 'ref-1', 2)).toHaveLength(2);
  });

  it('a backlog crossing range boundaries: the catch-up indexes it into new ranges, the job then merges the closed ones', async () => {
    const before = ranges(s).length;
    bulkSessions(s, template, 9, 'late', 'Late Ranged');
    // As a search's catch-up: no merge, a row cap.
    expect(await indexSearchBacklog(t.database.db, { budgetMs: 60_000, maxRows: 100, rangeRows: RANGE })).toMatchObject({ indexed: 9, behind: false, merges: 0 });
    expect(mark(s)).toBe(topRowid(s));
    expect(ranges(s).length).toBeGreaterThanOrEqual(before + 2);
    expect(ranges(s).filter((r) => r.hi !== null && r.merged === 0).length).toBeGreaterThan(0);
    expect((await search('q=late%20ranged')).sessions).toHaveLength(9);
    for (let cap = 1; cap <= 10; cap++) expect((await hits('ranged', cap)).keys).toEqual(reference(s, m.merchant_id, 'ranged', cap));
    expect((await job()).merges).toBeGreaterThan(0);
    expect(ranges(s).filter((r) => r.hi !== null && r.merged === 0)).toEqual([]);
    integrity(s);
  });

  it('deletes and name changes reach the range of the row; a rowid given again after the newest were deleted goes to its range', async () => {
    const [first] = reference(s, m.merchant_id, 'a0-ref-1', 1);
    s.prepare(`UPDATE checkout_sessions SET customer_name = 'Renamed Old Range' WHERE id = 'a0-1'`).run();
    s.prepare(`DELETE FROM checkout_sessions WHERE id = 'a0-2'`).run();
    expect((await search('q=renamed%20old')).sessions.map((x) => x.id)).toEqual(['a0-1']);
    expect((await search('q=a0-REF-2')).sessions).toEqual([]);
    expect(inTable(s, ranges(s).find((r) => r.lo < first! && first! <= (r.hi ?? Infinity))!.id, 'renamed old')).toEqual([first]);
    // The newest range emptied and more: the mark comes down below its start.
    const open = ranges(s).at(-1)!;
    const top = topRowid(s);
    s.prepare(`DELETE FROM checkout_sessions WHERE rowid > ?`).run(open.lo - 1);
    expect(mark(s)).toBe(open.lo - 1);
    bulkSessions(s, template, 3, 'again', 'Again Ranged');
    expect(topRowid(s)).toBe(open.lo + 2);
    // Indexed by the job, not left to the search's own catch-up: that one stops after CATCH_UP_MS of wall time,
    // which a busy machine (CI, test files in parallel) spent on the first batch, leaving two of the three unindexed.
    await job();
    expect((await search('q=again%20ranged')).sessions).toHaveLength(3);
    expect(inTable(s, ranges(s).find((r) => r.hi === open.lo)!.id, 'again ranged')).toEqual([open.lo]);
    expect(inTable(s, open.id, 'again ranged')).toEqual([open.lo + 1, open.lo + 2]);
    expect(top).toBeGreaterThan(open.lo);
    for (let cap = 1; cap <= 20; cap++) expect((await hits('ranged', cap)).keys).toEqual(reference(s, m.merchant_id, 'ranged', cap));
    // A rowid given again to another merchant's session: its range records that merchant too, and each search keeps to its own.
    expect(recorded(s, open.id)).toEqual([m.merchant_id]);
    const otherTemplate = s.prepare(`SELECT id FROM checkout_sessions WHERE invoice_ref = 'RANGE-OTHER'`).pluck().get() as string;
    bulkSessions(s, otherTemplate, 1, 'reused', 'Again Ranged');
    expect(await indexSearchBacklog(t.database.db, { budgetMs: 60_000, rangeRows: RANGE })).toMatchObject({ indexed: 1 });
    expect((await hits('again ranged', 10, other.merchant_id)).keys).toEqual([open.lo + 3]);
    expect((await hits('again ranged', 10)).keys).toEqual([open.lo + 2, open.lo + 1, open.lo]);
    expect(recorded(s, open.id)).toEqual([m.merchant_id, other.merchant_id].sort());
    await job();
    integrity(s);
  });

  it('keeps the record whoever indexes (a server before 0031 on the same file) and when a session changes merchant by hand', async () => {
    const third = await t.merchant('Third Range Merchant');
    const thirdTemplate = (await openSession(t, third, { invoice_ref: 'RANGE-THIRD', customer: { name: 'Third Template' } })).id;
    await job();
    // As a server before 0031 indexed: a range made if the open one is full, the rows put in its table, the mark
    // moved, and no merchant recorded by the job itself.
    bulkSessions(s, thirdTemplate, 1, 'legacy', 'Legacy Ranged');
    const [before, top] = [mark(s), topRowid(s)];
    let open: { id: number; lo: number } = ranges(s).at(-1)!;
    if (top > open.lo + RANGE) open = await openRange(t.database.db, before);
    const tt = rangeTable(open.id);
    s.prepare(`INSERT INTO ${tt} (rowid, customer_name, invoice_ref) SELECT rowid, customer_name, invoice_ref FROM checkout_sessions WHERE rowid > ?`).run(before);
    s.prepare(`UPDATE checkout_sessions_search_mark SET indexed_through = ? WHERE id = 1`).run(top);
    expect(recorded(s, open.id)).toContain(third.merchant_id);
    expect((await hits('legacy ranged', 10, third.merchant_id)).keys).toEqual([top]);
    // A merchant changed by hand: the range records the new one too, so each search keeps to its own sessions.
    s.prepare(`UPDATE checkout_sessions SET merchant_id = ? WHERE rowid = ?`).run(other.merchant_id, top);
    expect(recorded(s, open.id)).toContain(other.merchant_id);
    expect((await hits('legacy ranged', 10, other.merchant_id)).keys).toEqual([top]);
    expect((await hits('legacy ranged', 10, third.merchant_id)).keys).toEqual([]);
    integrity(s);
  });

  it('rebuilds from the table into ranges, merged, the last open, the mark at the newest', async () => {
    const want = reference(s, m.merchant_id, 'ranged', 100);
    rebuildSearchIndex(s, RANGE);
    const rs = ranges(s);
    expect(rs.at(-1)!.hi).toBeNull();
    expect(rs.slice(0, -1).every((r) => r.merged === 1 && r.hi! - r.lo === RANGE)).toBe(true);
    expect(rs.length).toBe(Math.ceil(topRowid(s) / RANGE));
    expect(mark(s)).toBe(topRowid(s));
    expect((await hits('ranged', 100)).keys).toEqual(want);
    for (const r of rs) expect({ id: r.id, merchants: recorded(s, r.id) }).toEqual({ id: r.id, merchants: indexedMerchants(s, r) });
    integrity(s);
    expect(s.pragma('integrity_check', { simple: true })).toBe('ok');
  });
});

describe.skipIf(onPostgres)('migration 0025 from one index', () => {
  // Made in beforeAll, not while the suite is collected: a suite skipped on PostgreSQL is still
  // collected, and its afterAll never runs.
  let dir: string;
  let d: ReturnType<typeof openDatabase>;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'paydesk-m0025-'));
    d = openDatabase(join(dir, 'paydesk.sqlite'));
  });
  afterAll(async () => {
    await d?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('from 200,000 indexed sessions: range 0 closed at the mark and merged, the next sessions go to range 1, found with the old ones', async () => {
    const before = Object.fromEntries(Object.entries(migrations).filter(([name]) => name < '0025'));
    expect((await new Migrator({ db: d.db, provider: { getMigrations: async () => before } }).migrateToLatest()).error).toBeUndefined();
    const s = d.sqlite;
    const now = new Date().toISOString();
    const bulk = (from: number, n: number, name: string) => {
      s.pragma('foreign_keys = OFF');
      s.prepare(`WITH RECURSIVE n(i) AS (SELECT ? UNION ALL SELECT i + 1 FROM n WHERE i < ?)
        INSERT INTO checkout_sessions (id, merchant_id, integration_id, status, amount_minor, currency, invoice_ref, customer_name, metadata, expires_at, created_at, updated_at)
        SELECT 'cs-' || i, 'm1', 'i1', 'open', 1000, 'GHS', 'REF-' || i, ? || ' ' || i, '{}', ?, ?, ? FROM n`).run(from, from + n - 1, name, now, now, now);
      s.pragma('foreign_keys = ON');
    };
    bulk(1, 200_000, 'Upgrade Payer');
    // As the volume seed and the old rebuild did: the whole table indexed, the mark at the newest.
    s.exec(`INSERT INTO checkout_sessions_search (checkout_sessions_search) VALUES ('rebuild'); UPDATE checkout_sessions_search_mark SET indexed_through = 200000`);
    await migrate(d.db);
    expect(ranges(s)).toEqual([{ id: 0, lo: 0, hi: 200_000, merged: 1 }]);
    // 0031 recorded range 0's merchant from the table.
    expect(recorded(s, 0)).toEqual(['m1']);
    bulk(200_001, 3, 'Later Payer');
    expect(await indexSearchBacklog(d.db, { budgetMs: 60_000, merge: true })).toMatchObject({ indexed: 3, behind: false });
    expect(ranges(s)).toEqual([{ id: 0, lo: 0, hi: 200_000, merged: 1 }, { id: 1, lo: 200_000, hi: null, merged: 0 }]);
    expect(recorded(s, 1)).toEqual(['m1']);
    const found = await sessionSearchOf(d.db).hits(d.db, 'payer 20000', { merchantId: 'm1', cap: 100, now: Date.now() });
    // 200001…200003 (range 1), then 20000 and 200000 (range 0): newest first.
    expect(found.keys).toEqual([200_003, 200_002, 200_001, 200_000, 20_000]);
    integrity(s);
    expect(s.pragma('integrity_check', { simple: true })).toBe('ok');
  });
});
