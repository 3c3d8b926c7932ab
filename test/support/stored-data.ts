import { existsSync, readFileSync } from 'node:fs';
import { sql } from 'kysely';
import type { OpenedDatabase } from '../../server/db/database';

/**
 * What a test may look at to prove a value is NOT stored, on either engine.
 *
 * SQLite: the bytes of the database file and its WAL as they are now, then the file again after
 * a checkpoint (so a value that only ever lived in the WAL is caught, and so is one the
 * checkpoint writes into the file). PostgreSQL has no file a test can read, so there it is
 * every row of every table of the test's schema cast to text (`t::text` covers every column,
 * whatever its type): everything the database would give back to anyone who can query it.
 */
export async function storedBytes(opened: OpenedDatabase): Promise<Buffer[]> {
  if (opened.engine === 'sqlite') {
    const file = opened.sqlite.name;
    const files = [file, `${file}-wal`].filter((f) => existsSync(f));
    const before = Buffer.concat(files.map((f) => readFileSync(f)));
    opened.sqlite.pragma('wal_checkpoint(FULL)');
    return [before, readFileSync(file)];
  }
  const tables = await sql<{ name: string }>`SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename`.execute(opened.db);
  const parts: string[] = [];
  for (const { name } of tables.rows) {
    const rows = await sql<{ row: string }>`SELECT t::text AS row FROM ${sql.table(name)} t`.execute(opened.db);
    for (const r of rows.rows) parts.push(`${name} ${r.row}`);
  }
  // Sanity for the callers: an empty dump would make every "not stored" assertion pass.
  if (tables.rows.length === 0) throw new Error('no tables found in the current schema');
  return [Buffer.from(parts.join('\n'), 'utf8')];
}

/**
 * Makes every INSERT into `table` fail with `message` until the returned function is called: a
 * stand-in for a disk error or a crash between two writes of one transaction. SQLite: a TEMP
 * trigger on the app's one connection; PostgreSQL: a trigger on the test's own database (every
 * connection of the pool sees it).
 */
export async function failInserts(opened: OpenedDatabase, table: string, message: string): Promise<() => Promise<void>> {
  if (opened.engine === 'sqlite') {
    opened.sqlite.exec(`CREATE TEMP TRIGGER test_fault_${table} BEFORE INSERT ON ${table} BEGIN SELECT RAISE(ABORT, '${message}'); END`);
    return async () => {
      opened.sqlite.exec(`DROP TRIGGER test_fault_${table}`);
    };
  }
  const fn = sql.raw(`test_fault_${table}`);
  await sql`CREATE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS ${sql.raw(`$$ BEGIN RAISE EXCEPTION '${message}'; END $$`)}`.execute(opened.db);
  await sql`CREATE TRIGGER ${fn} BEFORE INSERT ON ${sql.table(table)} FOR EACH ROW EXECUTE FUNCTION ${fn}()`.execute(opened.db);
  return async () => {
    await sql`DROP TRIGGER ${fn} ON ${sql.table(table)}`.execute(opened.db);
    await sql`DROP FUNCTION ${fn}()`.execute(opened.db);
  };
}
