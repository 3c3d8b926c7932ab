import type SQLite from 'better-sqlite3';

/** Prepared statements kept per connection; Kysely's queries are a bounded set of SQL texts. */
const STATEMENT_CACHE_SIZE = 500;

/**
 * Kysely's SQLite driver calls `prepare(sql)` for every query, and preparing was the largest
 * server-side cost in the benchmark profile (docs/performance.md). Statements are reused by
 * SQL text instead. Safe because Kysely runs one query at a time on the connection and
 * `all`/`run` finish synchronously; a statement being iterated (`.stream()`) is not reused.
 */
export function withStatementCache(sqlite: SQLite.Database, onWrite: (sql: string) => void): Pick<SQLite.Database, 'prepare' | 'close'> {
  const cache = new Map<string, SQLite.Statement>();
  return {
    prepare: ((sql: string) => {
      const hit = cache.get(sql);
      if (hit && !hit.busy) {
        if (!hit.readonly) onWrite(sql);
        return hit;
      }
      const stmt = sqlite.prepare(sql);
      if (!stmt.readonly) onWrite(sql);
      if (!hit) {
        if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value as string);
        cache.set(sql, stmt);
      }
      return stmt;
    }) as SQLite.Database['prepare'],
    close: () => {
      cache.clear();
      return sqlite.close();
    },
  };
}
