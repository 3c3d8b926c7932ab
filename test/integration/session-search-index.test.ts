import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type SQLite from 'better-sqlite3';
import { Migrator, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, openDatabase, type Db } from '../../server/db/database';
import { migrations } from '../../server/db/migrations/index';
import { CATCH_UP_ROWS, indexSearchBacklog } from '../../server/db/search/sqlite-index';
import type { CreatedIntegration } from '../../server/modules/integrations/integrations.service';
import { createTestApp, type TestContext } from '../support/app';
import { call, staff, type Staff } from '../support/backoffice';
import { openSession } from '../support/checkout';
import { onPostgres } from '../support/database';

/**
 * On SQLite the session search's FTS5 index is written behind the session writes
 * (server/db/search/sqlite-index.ts, migration 0020): by the sweeper's job in batches,
 * and by a search itself for the sessions not yet indexed, so a session is found as soon as it
 * is created. On PostgreSQL (pg_trgm, part of the table) only the first test applies.
 */

const mark = (sqlite: SQLite.Database) => sqlite.prepare(`SELECT indexed_through FROM checkout_sessions_search_mark`).pluck().get() as number;
const topRowid = (sqlite: SQLite.Database) => (sqlite.prepare(`SELECT COALESCE(max(rowid), 0) FROM checkout_sessions`).pluck().get() as number);
const indexed = (sqlite: SQLite.Database, phrase: string) =>
  (sqlite.prepare(`SELECT s.id FROM checkout_sessions s WHERE s.rowid IN (SELECT rowid FROM checkout_sessions_search WHERE checkout_sessions_search MATCH ?) ORDER BY s.id`).all(`"${phrase}"`) as Array<{ id: string }>).map((r) => r.id);
const integrity = (sqlite: SQLite.Database) => sqlite.prepare(`INSERT INTO checkout_sessions_search (checkout_sessions_search, rank) VALUES ('integrity-check', 1)`).run();

/** `n` copies of session `templateId` written straight into the table (a bulk import): ids `${prefix}-i`, payer `${name} i`. */
function bulkSessions(sqlite: SQLite.Database, templateId: string, n: number, prefix: string, name: string): void {
  const cols = (sqlite.prepare(`SELECT name FROM pragma_table_info('checkout_sessions')`).all() as Array<{ name: string }>).map((c) => c.name);
  const values = cols.map((c) => (c === 'id' ? `'${prefix}-' || i` : c === 'customer_name' ? `'${name} ' || i` : c === 'invoice_ref' ? `'${prefix}-REF-' || i` : `t.${c}`));
  sqlite
    .prepare(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?) INSERT INTO checkout_sessions (${cols.join(', ')}) SELECT ${values.join(', ')} FROM n, (SELECT * FROM checkout_sessions WHERE id = ?) t`)
    .run(n, templateId);
}

describe('the session search finds what was just written', () => {
  let t: TestContext;
  let m: CreatedIntegration;
  let fin: Staff;
  beforeAll(async () => {
    t = await createTestApp(); // no background jobs: only the search's own catch-up indexes
    m = await t.merchant('Index Merchant');
    fin = await staff(t, 'finance', { merchantId: m.merchant_id });
  });
  afterAll(async () => t?.close());

  const search = async (qs: string) => {
    const res = await call(t, fin, 'GET', `/sessions?${qs}`);
    expect(res.statusCode, res.body).toBe(200);
    return (res.json() as { sessions: Array<{ id: string }> }).sessions.map((s) => s.id).sort();
  };

  it('a session created is found by name and invoice ref on the next search, though no job ran', async () => {
    const a = await openSession(t, m, { invoice_ref: 'CATCH-UP-0001', customer: { name: 'Yaw Asantewaa' } });
    const b = await openSession(t, m, { invoice_ref: 'CATCH-UP-0002', customer: { name: 'Efua Asantewaa' } });
    if (!onPostgres) {
      // Not in the index yet: the create did not write it (0020 dropped the insert trigger).
      expect(indexed(t.database.sqlite, 'asantewaa')).toEqual([]);
      expect(mark(t.database.sqlite)).toBeLessThan(topRowid(t.database.sqlite));
    }
    expect(await search('q=asantewaa')).toEqual([a.id, b.id].sort());
    expect(await search('invoice_ref=UP-0002')).toEqual([b.id]);
    if (!onPostgres) {
      expect(mark(t.database.sqlite)).toBe(topRowid(t.database.sqlite));
      integrity(t.database.sqlite);
    }
  });

  it.skipIf(onPostgres)('a backlog beyond the catch-up bound: the search serves what is indexed, the job indexes the rest in batches', async () => {
    const s = t.database.sqlite;
    const template = await openSession(t, m, { invoice_ref: 'BULK-TEMPLATE' });
    await search('q=template'); // indexes the template: the backlog is now only the import
    const start = mark(s);
    const n = CATCH_UP_ROWS + 1_500;
    bulkSessions(s, template.id, n, 'bulk', 'Imported Payer');
    // One search indexes at most CATCH_UP_ROWS (the oldest first) and answers from the index.
    await search('q=imported');
    const afterSearch = mark(s);
    expect(afterSearch - start).toBeGreaterThan(0);
    expect(afterSearch - start).toBeLessThanOrEqual(CATCH_UP_ROWS);
    expect(indexed(s, 'imported payer')).toHaveLength(afterSearch - start);
    // The job, with no time to spare, does one batch (of FIRST_BATCH rows) and says it is behind.
    const one = await indexSearchBacklog(t.database.db, { budgetMs: 0, merge: true });
    expect(one.behind).toBe(true);
    expect(one.indexed).toBeGreaterThan(0);
    expect(one.indexed).toBeLessThan(start + n - afterSearch);
    expect(mark(s)).toBe(afterSearch + one.indexed);
    // Given time, the job indexes the rest in several transactions, then merges the segments.
    const rest = await indexSearchBacklog(t.database.db, { budgetMs: 60_000, merge: true });
    expect(rest).toEqual({ indexed: start + n - afterSearch - one.indexed, behind: false, merges: expect.any(Number) });
    expect(mark(s)).toBe(topRowid(s));
    expect(indexed(s, 'imported payer')).toHaveLength(n);
    expect(await search('q=imported%20payer%20123')).toHaveLength(11); // 123, 1230…1239
    integrity(s);
    // Nothing left: the next run is one read and changes nothing.
    expect(await indexSearchBacklog(t.database.db, { merge: true })).toEqual({ indexed: 0, behind: false, merges: 0 });
  });

  it.skipIf(onPostgres)('deletes and name changes keep the index right whether the row was indexed or not', async () => {
    const s = t.database.sqlite;
    const template = await openSession(t, m, { invoice_ref: 'EDIT-TEMPLATE' });
    await search('q=template');
    bulkSessions(s, template.id, 3, 'edit', 'Editable Payer');
    await indexSearchBacklog(t.database.db, { budgetMs: 60_000 });
    bulkSessions(s, template.id, 3, 'late', 'Late Payer'); // not indexed yet
    s.prepare(`UPDATE checkout_sessions SET customer_name = 'Renamed Indexed' WHERE id = 'edit-1'`).run();
    s.prepare(`UPDATE checkout_sessions SET customer_name = 'Renamed Pending' WHERE id = 'late-1'`).run();
    s.prepare(`DELETE FROM checkout_sessions WHERE id IN ('edit-2', 'late-2', 'late-3')`).run();
    expect(await search('q=renamed')).toEqual(['edit-1', 'late-1']);
    // (FTS5's check compares the index with every row of the table: it passes once nothing waits above the mark.)
    integrity(s);
    // The newest session deleted: the mark comes down with it, so a row given its rowid again is indexed.
    const top = topRowid(s);
    s.prepare(`DELETE FROM checkout_sessions WHERE rowid = ?`).run(top);
    expect(mark(s)).toBe(top - 1);
    bulkSessions(s, template.id, 1, 'reused', 'Reused Rowid');
    expect(topRowid(s)).toBe(top);
    expect(await search('q=reused%20rowid')).toEqual(['reused-1']);
    expect(await search('q=editable')).toEqual(['edit-3']);
    integrity(s);
  });
});

describe.skipIf(onPostgres)('migration 0020 from the trigger version', () => {
  // Made in beforeAll, not while the suite is collected: a suite skipped on PostgreSQL is still
  // collected, and its afterAll never runs.
  let dir: string;
  let d: ReturnType<typeof openDatabase>;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'paydesk-m0020-'));
    d = openDatabase(join(dir, 'paydesk.sqlite'));
  });
  afterAll(async () => {
    await d?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('loses nothing: the sessions the triggers indexed stay found, the mark starts at the newest, later ones are indexed by the job', async () => {
    const before = Object.fromEntries(Object.entries(migrations).filter(([name]) => name < '0020'));
    const { error } = await new Migrator({ db: d.db, provider: { getMigrations: async () => before } }).migrateToLatest();
    expect(error).toBeUndefined();
    const now = new Date().toISOString();
    const session = (id: string, name: string) => insertSession(d.db, id, name, now);
    for (let i = 1; i <= 5; i++) await session(`old-${i}`, `Trigger Payer ${i}`);
    expect(indexed(d.sqlite, 'trigger payer')).toHaveLength(5); // 0016's insert trigger

    await migrate(d.db);

    expect(mark(d.sqlite)).toBe(topRowid(d.sqlite));
    expect(indexed(d.sqlite, 'trigger payer')).toHaveLength(5);
    for (let i = 1; i <= 4; i++) await session(`new-${i}`, `Job Payer ${i}`);
    expect(indexed(d.sqlite, 'job payer')).toEqual([]);
    expect(await indexSearchBacklog(d.db, { budgetMs: 60_000, merge: true })).toEqual({ indexed: 4, behind: false, merges: expect.any(Number) });
    expect(indexed(d.sqlite, 'payer')).toHaveLength(9);
    integrity(d.sqlite);
    expect(d.sqlite.pragma('integrity_check', { simple: true })).toBe('ok');
  });
});

/** A session row as the API writes it, with the few columns the search reads set (foreign keys off: no integration needed). */
async function insertSession(db: Db, id: string, name: string, now: string): Promise<void> {
  await sql`PRAGMA foreign_keys = OFF`.execute(db);
  try {
    await sql`INSERT INTO checkout_sessions (id, merchant_id, integration_id, status, amount_minor, currency, invoice_ref, customer_name, metadata, expires_at, created_at, updated_at)
      VALUES (${id}, 'm1', 'i1', 'open', 1000, 'GHS', ${`REF-${id}`}, ${name}, '{}', ${now}, ${now}, ${now})`.execute(db);
  } finally {
    await sql`PRAGMA foreign_keys = ON`.execute(db);
  }
}
