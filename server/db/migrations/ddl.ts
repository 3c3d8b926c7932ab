import { sql, type ColumnDataType, type CreateTableBuilder, type Kysely, type RawBuilder } from 'kysely';
import { isPostgres } from '../engine';

/**
 * The few words the migrations say differently on SQLite and PostgreSQL. Frozen like the
 * migrations that use it: a change here would change what an old migration creates.
 *
 * - `int`: SQLite INTEGER (64-bit) is BIGINT on PostgreSQL (money and counters).
 * - `table(name)`: SQLite tables are STRICT (a value of the wrong type is refused).
 * - `check(expr)`: a column CHECK, the same SQL on both.
 */
export interface Ddl {
  pg: boolean;
  int: ColumnDataType;
  table(name: string): CreateTableBuilder<string, never>;
  check(expr: string): RawBuilder<unknown>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function ddl(db: Kysely<any>): Ddl {
  const pg = isPostgres(db);
  return {
    pg,
    int: pg ? 'bigint' : 'integer',
    table: (name) => {
      const t = db.schema.createTable(name);
      return pg ? t : t.modifyEnd(sql`strict`);
    },
    check: (expr) => sql.raw(expr),
  };
}
