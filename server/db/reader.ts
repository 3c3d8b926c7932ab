import { postgresUrlOf, sqliteFileOf, type Db } from './database';
import { openPostgresReader } from './postgres-reader';
import { openSqliteReader } from './sqlite-reader';

/**
 * Where a second, read-only connection on the server's database can be opened, as plain data a
 * worker thread can be given: the SQLite file, or PostgreSQL's DATABASE_URL.
 */
export type ReaderSource = { file: string; url?: undefined } | { url: string; file?: undefined };

/**
 * The source of `db`'s database, or null for a handle only this process can reach (SQLite in
 * memory, a handle derived from the opened one: a test's SQL recorder).
 */
export function readerSourceOf(db: Db): ReaderSource | null {
  const file = sqliteFileOf(db);
  if (file) return { file };
  const url = postgresUrlOf(db);
  return url ? { url } : null;
}

/**
 * A read-only connection on the source, for long reads off the main thread (the report worker,
 * server/modules/reports/report-worker.ts): sqlite-reader.ts and postgres-reader.ts say how.
 */
export function openReader(source: ReaderSource): { db: Db; close(): Promise<void> } {
  return source.url !== undefined ? openPostgresReader(source.url) : openSqliteReader(source.file);
}
