import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { migrate, openDatabase } from '../../server/db/database';
import { onPostgres } from '../support/database';
import { storedSummaries, summariesFromBase } from '../support/invoice-summaries';

/**
 * The migrations are written with Kysely's schema builder so they run on both engines
 * (server/db/migrations/ddl.ts). On SQLite they must build exactly the schema the raw SQL
 * of the releases built: a fresh database migrated today is compared, table by table, with
 * the release-0006 dump (test/fixtures, made by the old SQL) upgraded to the latest schema.
 * SQLite-only: the comparison reads SQLite's pragmas.
 */
const FIXTURE = join(import.meta.dirname, '../fixtures/paydesk-0006.sql');

interface TableShape {
  strict: number;
  columns: unknown[];
  indexes: unknown[];
  foreignKeys: unknown[];
}

function shape(db: SQLite.Database): Record<string, TableShape> {
  const tables = (db.prepare(`SELECT name, strict FROM pragma_table_list WHERE schema = 'main' AND type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'kysely_%' ORDER BY name`).all() as Array<{ name: string; strict: number }>);
  const out: Record<string, TableShape> = {};
  for (const t of tables) {
    const columns = db.prepare(`SELECT name, type, "notnull", dflt_value, pk FROM pragma_table_info(?)`).all(t.name);
    const indexes = (db.prepare(`SELECT name, "unique", origin, partial FROM pragma_index_list(?)`).all(t.name) as Array<{ name: string; unique: number; origin: string; partial: number }>)
      .map((i) => ({
        // SQLite names the indexes of UNIQUE constraints itself (sqlite_autoindex_<table>_<n>): compare by what they cover.
        name: i.name.startsWith('sqlite_autoindex_') ? '(constraint)' : i.name,
        unique: i.unique,
        origin: i.origin,
        partial: i.partial,
        columns: (db.prepare(`SELECT name FROM pragma_index_info(?) ORDER BY seqno`).all(i.name) as Array<{ name: string }>).map((c) => c.name),
        where: i.partial ? /\bwhere\b(.*)$/is.exec((db.prepare(`SELECT sql FROM sqlite_master WHERE name = ?`).get(i.name) as { sql: string }).sql)?.[1]?.replace(/[\s"'`]+/g, '').toLowerCase() : null,
      }))
      .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
    const foreignKeys = (db.prepare(`SELECT "table", "from", "to" FROM pragma_foreign_key_list(?)`).all(t.name) as unknown[]).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
    out[t.name] = { strict: t.strict, columns, indexes, foreignKeys };
  }
  return out;
}

function nocaseColumns(db: SQLite.Database): string[] {
  return (db.prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'table'`).all() as Array<{ name: string; sql: string }>)
    .filter((t) => /collate\s+nocase/i.test(t.sql))
    .map((t) => t.name);
}

function checks(db: SQLite.Database): Record<string, number> {
  const out: Record<string, number> = {};
  for (const t of db.prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'kysely_%'`).all() as Array<{ name: string; sql: string }>) {
    out[t.name] = (t.sql.match(/\bcheck\s*\(/gi) ?? []).length;
  }
  return out;
}

describe.skipIf(onPostgres)('the schema-builder migrations build the same SQLite schema as the releases’ SQL', () => {
  const cleanup: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const f of cleanup.splice(0).reverse()) await f();
  });

  it('a fresh database equals the 0006 dump upgraded: tables, STRICT, columns, defaults, keys, indexes, checks, triggers, the search index', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'paydesk-schema-'));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const oldFile = join(dir, 'old.sqlite');
    const raw = new SQLite(oldFile);
    raw.exec(readFileSync(FIXTURE, 'utf8'));
    raw.close();
    const upgraded = openDatabase(oldFile);
    cleanup.push(() => upgraded.close());
    await migrate(upgraded.db);
    const fresh = openDatabase(join(dir, 'new.sqlite'));
    cleanup.push(() => fresh.close());
    await migrate(fresh.db);

    expect(shape(fresh.sqlite)).toEqual(shape(upgraded.sqlite));
    expect(nocaseColumns(fresh.sqlite)).toEqual(nocaseColumns(upgraded.sqlite));
    expect(checks(fresh.sqlite)).toEqual(checks(upgraded.sqlite));
    const triggers = (d: SQLite.Database) => (d.prepare(`SELECT name, tbl_name FROM sqlite_master WHERE type = 'trigger' ORDER BY name`).all());
    expect(triggers(fresh.sqlite)).toEqual(triggers(upgraded.sqlite));
    expect(shape(fresh.sqlite).invoice_summaries?.indexes.map((i) => (i as { name: string }).name).sort()).toEqual([
      '(constraint)',
      'invoice_summaries_mode_billed',
      'invoice_summaries_mode_lines',
      'invoice_summaries_paid_again',
      'invoice_summaries_paid_differs',
      'invoice_summaries_remitted_updated',
      'invoice_summaries_updated',
    ]);
    // Migration 0017 backfilled the dump's invoices (lines and sessions) from the base tables.
    const summaries = await storedSummaries(upgraded.db);
    expect(summaries.length).toBeGreaterThan(0);
    expect(summaries).toEqual(await summariesFromBase(upgraded.db));
    // 0016: the session search's FTS5 trigram table over checkout_sessions, and the triggers that keep it.
    const virtual = (d: SQLite.Database) => d.prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%' ORDER BY name`).all() as Array<{ name: string; sql: string }>;
    expect(virtual(fresh.sqlite)).toEqual(virtual(upgraded.sqlite));
    expect(virtual(fresh.sqlite).map((v) => v.name)).toEqual(['checkout_sessions_search']);
    expect(virtual(fresh.sqlite)[0]!.sql).toMatch(/fts5\(\s*customer_name, invoice_ref,\s*content='checkout_sessions', content_rowid='rowid',\s*tokenize='trigram case_sensitive 0'\s*\)/);
    // 0020: no insert trigger (new sessions are indexed behind the writes, sqlite-index.ts), the index complete up to the mark;
    // 0031: the two that keep each range's merchants (the mark moving up, a merchant changed by hand).
    const searchTriggers = (d: SQLite.Database) => (triggers(d) as Array<{ name: string }>).filter((t) => t.name.startsWith('checkout_sessions_search')).map((t) => t.name);
    expect(searchTriggers(fresh.sqlite)).toEqual([
      'checkout_sessions_search_delete',
      'checkout_sessions_search_range_merchants_moved',
      'checkout_sessions_search_range_merchants_noted',
      'checkout_sessions_search_update',
    ]);
    expect(upgraded.sqlite.prepare(`SELECT indexed_through FROM checkout_sessions_search_mark`).pluck().get()).toBe(upgraded.sqlite.prepare(`SELECT max(rowid) FROM checkout_sessions`).pluck().get());
    // The release's sessions were indexed by the migration: the index agrees with the table, and finds them.
    expect(() => upgraded.sqlite.prepare(`INSERT INTO checkout_sessions_search (checkout_sessions_search, rank) VALUES ('integrity-check', 1)`).run()).not.toThrow();
    const found = (q: string) => (upgraded.sqlite.prepare(`SELECT s.invoice_ref FROM checkout_sessions s WHERE s.rowid IN (SELECT rowid FROM checkout_sessions_search WHERE checkout_sessions_search MATCH ?) ORDER BY 1`).all(q) as Array<{ invoice_ref: string }>).map((r) => r.invoice_ref);
    expect(found('"mensa"')).toEqual((upgraded.sqlite.prepare(`SELECT invoice_ref FROM checkout_sessions WHERE customer_name LIKE '%mensa%' ORDER BY 1`).all() as Array<{ invoice_ref: string }>).map((r) => r.invoice_ref));
    expect(found('"mensa"').length).toBeGreaterThan(0);
    expect(found('"fix-"').length).toBe((upgraded.sqlite.prepare(`SELECT count(*) AS n FROM checkout_sessions WHERE invoice_ref LIKE '%fix-%'`).get() as { n: number }).n);
  });
});
