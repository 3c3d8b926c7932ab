import type { CompiledQuery, Kysely } from 'kysely';
import { directSqliteOf } from './direct-sqlite';
import { isPostgres } from './engine';
import type { Database } from './schema';

const MARK = '\u0000param:';

/**
 * A hot-path query built and compiled by Kysely once per engine, then run with new parameter
 * values (issue 16: query building — freeze, visitNode, cloneWith… — was ~6 % of the server
 * profile, paid again on every call). `build` receives `p`, whose every property is a
 * placeholder: use them only as plain values (`where('id', '=', p.id)`, `values({ id: p.id })`),
 * never in JS logic, in `in` lists or in values Kysely transforms. The same SQL text each call
 * also lets SQLite reuse its prepared statement (server/db/database.ts) without rehashing.
 *
 * On SQLite the statement runs on the connection directly (better-sqlite3's `all`/`run`, through
 * the same statement cache, so writes still count for the change stamp): Kysely's executor, its
 * connection mutex and the promises around them were most of what a session lookup cost besides
 * SQLite itself. That is safe because the connection is single and better-sqlite3 synchronous:
 * - `db` is a transaction: it holds the connection, so the statement runs inside it, as through Kysely;
 * - `db` is not, and no transaction is open on the connection: the statement runs alone, as an
 *   autocommit statement through Kysely would;
 * - `db` is not, but a transaction is open (another request's that awaits between its
 *   statements, or the turn's group commit, server/db/sqlite-group-commit.ts): the statement
 *   goes through Kysely, which waits for it to commit, so it neither reads uncommitted rows nor
 *   joins it.
 * On PostgreSQL it runs through `executeQuery`, so plugins' transformQuery sees the query only at
 * compile time: do not use this for writes to the tables of CREDENTIAL_TABLES (the PostgreSQL
 * change stamp counts those per query, server/db/postgres.ts).
 */
export function precompiled<P extends object, R>(build: (db: Kysely<Database>, p: P) => { compile(): CompiledQuery<R> }) {
  const compiledFor = compiler(build);
  return async (db: Kysely<Database>, params: P): Promise<R[]> => {
    const executor = db.getExecutor();
    const direct = directSqliteOf(executor.adapter);
    const { query, bind } = compiledFor(db, direct ? 'sqlite' : isPostgres(db) ? 'postgres' : 'sqlite');
    const parameters = bind(params);
    // A handle with plugins (a test's recorder) keeps Kysely's path, so their transformResult runs.
    if (direct && executor.plugins.length === 0 && (db.isTransaction || !direct.inTransaction())) {
      // A transaction that SQLite rolled back, or that the group commit set aside (it awaited
      // across a turn: server/db/sqlite-group-commit.ts), must not write on its own.
      if (db.isTransaction && !direct.inTransaction()) throw new Error('the transaction is no longer open on the connection');
      const stmt = direct.prepare(query.sql);
      if (!stmt.reader) {
        stmt.run(parameters);
        return [];
      }
      return stmt.all(parameters) as R[];
    }
    const result = await db.executeQuery<R>({ ...query, parameters });
    return result.rows;
  };
}

/**
 * The query `build` makes, compiled once per engine, and how a call's params become its
 * parameter values (precompiled's placeholders). Shared with server/db/group-commit.ts.
 */
export function compiler<P extends object, R>(build: (db: Kysely<Database>, p: P) => { compile(): CompiledQuery<R> }) {
  const byEngine: { sqlite?: Compiled<P, R>; postgres?: Compiled<P, R> } = {};
  const placeholders = new Proxy({} as P, { get: (_, name) => `${MARK}${String(name)}` });
  return (db: Kysely<Database>, engine: 'sqlite' | 'postgres'): Compiled<P, R> => {
    const hit = byEngine[engine];
    if (hit) return hit;
    const query = build(db, placeholders).compile();
    // Where each parameter comes from: a property of the call's params, or a constant the builder
    // wrote itself (a literal state name), which stays as compiled.
    const slots: Slot[] = query.parameters.map((v) => (typeof v === 'string' && v.startsWith(MARK) ? { name: v.slice(MARK.length) } : { value: v }));
    const bind = (params: P): unknown[] => {
      const values = params as Record<string, unknown>;
      return slots.map((s) => ('name' in s ? values[s.name] : s.value));
    };
    const compiled = { query, bind };
    byEngine[engine] = compiled;
    return compiled;
  };
}

type Slot = { name: string } | { value: unknown };
type Compiled<P, R> = { query: CompiledQuery<R>; bind(params: P): unknown[] };

/**
 * The `values` of a precompiled insert of a whole row: every column of `columns` taken from `p`.
 * `columns` must name every column of T (checked by the type), so no call's value is dropped.
 */
export function rowOf<T extends object>(p: T, columns: ReadonlyArray<keyof T>): T {
  return Object.fromEntries(columns.map((c) => [c, p[c]])) as T;
}

/** Compile-time check that a column list names every key of T. */
export function columnList<T>() {
  return <const C extends ReadonlyArray<keyof T>>(cols: C & ([Exclude<keyof T, C[number]>] extends [never] ? unknown : { missing: Exclude<keyof T, C[number]> })): C => cols;
}
