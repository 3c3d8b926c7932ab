import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import type { Db } from './database';
import type { Database } from './schema';
import { withStatementCache } from './statement-cache';

/**
 * A read-only connection on the server's SQLite file, for long reads off the main thread
 * (the report worker, server/modules/reports/report-worker.ts). In WAL mode a reader never
 * blocks the writer, and each statement reads one consistent snapshot. A write through it
 * fails (SQLITE_READONLY): it is only given report queries.
 */
export function openSqliteReader(file: string): { db: Db; close(): Promise<void> } {
  const sqlite = new SQLite(file, { readonly: true, fileMustExist: true });
  sqlite.pragma('busy_timeout = 5000');
  // 2 MB of page cache instead of better-sqlite3's 16 MB: an export reads each page about once
  // (the OS keeps the file cached anyway), and this cache is memory the process holds on to.
  sqlite.pragma('cache_size = -2000');
  const db = new Kysely<Database>({
    dialect: new SqliteDialect({
      database: withStatementCache(sqlite, (sql) => {
        throw new Error(`read-only report connection: refused a write (${sql.slice(0, 40)})`);
      }),
    }),
  });
  return { db, close: () => db.destroy() };
}
