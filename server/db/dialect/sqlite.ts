import { sql } from 'kysely';
import type { Dialect } from './types';

export const sqliteDialect: Dialect = {
  engine: 'sqlite',
  greatest: 'MAX',
  oneStatementWrites: false,
  jsonRows: (json) => ({
    from: sql`json_each(${json}) AS e`,
    at: (i) => sql`e.value ->> ${sql.raw(String(i))}`,
    // SQLite's column affinity makes the text an integer.
    integerAt: (i) => sql`e.value ->> ${sql.raw(String(i))}`,
    where: sql`WHERE true`,
  }),
  exclusiveJob: (db, _name, fn) => db.transaction().execute(fn),
  lockTable: async () => undefined,
  async sizes(db) {
    // dbstat names each index's pages by the index: folded into its table through sqlite_master.
    // The session search's FTS5 index (0016) is stored in tables of its own (checkout_sessions_search_data, …): checkout_sessions' too.
    const rows = await sql<{ tbl: string; bytes: number }>`SELECT CASE WHEN m.tbl_name GLOB 'checkout_sessions_search*' THEN 'checkout_sessions' ELSE m.tbl_name END AS tbl, SUM(s.pgsize) AS bytes FROM dbstat s JOIN sqlite_master m ON m.name = s.name GROUP BY 1`.execute(db);
    const pages = await sql<{ n: number }>`SELECT page_count * page_size AS n FROM pragma_page_count(), pragma_page_size()`.execute(db);
    return { tables: new Map(rows.rows.map((r) => [r.tbl, Number(r.bytes)])), total: Number(pages.rows[0]?.n ?? 0) };
  },
  notify: async () => undefined,
};
