import type SQLite from 'better-sqlite3';
import type { CompiledQuery, Kysely } from 'kysely';
import { directPostgresOf, queryOnPool } from './direct-postgres';
import { directSqliteOf } from './direct-sqlite';
import { isPostgres } from './engine';
import { prepareByName } from './prepared-statements';
import type { Database } from './schema';

const MARK = '\u0000param:';

/**
 * A hot-path query built and compiled by Kysely once per engine, then run with new parameter
 * values (query building — freeze, visitNode, cloneWith… — was ~6 % of the server
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
 * On PostgreSQL it runs on a pooled client of the server's pool when it runs outside a transaction
 * (server/db/direct-postgres.ts), else through `executeQuery`; plugins' transformQuery sees the query only at
 * compile time: do not use this for writes to the tables of CREDENTIAL_TABLES (the PostgreSQL
 * change stamp counts those per query, server/db/postgres.ts).
 */
export function precompiled<P extends object, R>(build: (db: Kysely<Database>, p: P) => { compile(): CompiledQuery<R> }, opts: RunOptions = {}) {
  return precompiledWith<P, R, P>(build, undefined, opts);
}

interface RunOptions {
  /**
   * A write that may run twice with the effect of once (an Idempotency-Key's reservation guards
   * it): on PostgreSQL it runs again on the next pooled connection when the one it was sent on
   * turns out dead, as reads do (server/db/direct-postgres.ts).
   */
  safeToRepeat?: boolean;
}

/**
 * `precompiled` called with the parameter values themselves, in the order of `names` (the
 * placeholders `build` uses): no object of named params to build and read back per call, which for
 * a multi-row insert (the webhook attempt log: 16 columns × 32 rows) was most of its JS cost.
 */
export function precompiledValues<R>(build: (db: Kysely<Database>, p: Record<string, unknown>) => { compile(): CompiledQuery<R> }, names: readonly string[]) {
  return precompiledWith<Record<string, unknown>, R, readonly unknown[]>(build, names);
}

/** The engine a statement is compiled for: SQLite when it can run on the connection directly. */
const engineOf = (db: Kysely<Database>, direct: unknown): 'sqlite' | 'postgres' => (direct ? 'sqlite' : isPostgres(db) ? 'postgres' : 'sqlite');

function precompiledWith<P extends object, R, A>(build: (db: Kysely<Database>, p: P) => { compile(): CompiledQuery<R> }, names?: readonly string[], opts: RunOptions = {}) {
  const compiledFor = compiler(build, names);
  const run = async (db: Kysely<Database>, params: A): Promise<R[]> => {
    const executor = db.getExecutor();
    const direct = directSqliteOf(executor.adapter);
    const { query, bind } = compiledFor(db, engineOf(db, direct));
    const parameters = bind(params as unknown as P);
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
      return rowsOf(stmt, parameters) as R[];
    }
    // PostgreSQL outside a transaction: on a pooled client, without Kysely's executor (direct-postgres.ts).
    const pool = db.isTransaction ? undefined : directPostgresOf(db);
    if (pool) return queryOnPool<R>(pool, query.sql, parameters, opts.safeToRepeat);
    const result = await db.executeQuery<R>({ ...query, parameters });
    return result.rows;
  };
  /** The statement a call with `params` runs on `db`: the text compiled once, with the call's values (for EXPLAIN). */
  const statement = (db: Kysely<Database>, params: A): CompiledQuery<R> => {
    const { query, bind } = compiledFor(db, engineOf(db, directSqliteOf(db.getExecutor().adapter)));
    return { ...query, parameters: bind(params as unknown as P) };
  };
  return Object.assign(run, { statement });
}

/** Per statement: a function making a row object from better-sqlite3's array of column values. */
const rowMakers = new WeakMap<SQLite.Statement, ((values: unknown[]) => unknown) | null>();

/**
 * `stmt.all` in raw mode, each row made into an object by a function written for the
 * statement's columns. better-sqlite3 builds a row object itself by setting each
 * column on an empty object through V8's API, internalizing the column name every time: for the
 * 17 columns of a session that was ~2.5 µs of a ~6 µs lookup (in a loop; more inside the server).
 * An object literal of fixed shape costs a fraction of that, and every row of one statement
 * shares one hidden class, so the code reading the rows stays monomorphic. Same keys, same
 * order, same values; a repeated column name keeps the last value, as better-sqlite3 does.
 * The statement is shared with Kysely's path (server/db/statement-cache.ts), so raw mode is
 * switched off again before anything else can use it.
 */
function rowsOf(stmt: SQLite.Statement, parameters: unknown[]): unknown[] {
  let make = rowMakers.get(stmt);
  if (make === undefined) {
    const names = stmt.columns().map((c) => c.name);
    // Names are JSON-quoted into the literal, so each is a plain string key; `__proto__` in a
    // literal would set the prototype instead, so such a statement keeps better-sqlite3's rows.
    make = names.includes('__proto__')
      ? null
      : (new Function('v', `return {${names.map((n, i) => `${JSON.stringify(n)}: v[${i}]`).join(', ')}};`) as (values: unknown[]) => unknown);
    rowMakers.set(stmt, make);
  }
  if (make === null) return stmt.all(parameters);
  stmt.raw(true);
  let raw: unknown[][];
  try {
    raw = stmt.all(parameters) as unknown[][];
  } finally {
    stmt.raw(false);
  }
  const rows = new Array<unknown>(raw.length);
  for (let i = 0; i < raw.length; i++) rows[i] = make(raw[i] as unknown[]);
  return rows;
}

/**
 * The query `build` makes, compiled once per engine, and how a call's params become its
 * parameter values (precompiled's placeholders). Shared with server/db/group-commit.ts.
 */
export function compiler<P extends object, R>(build: (db: Kysely<Database>, p: P) => { compile(): CompiledQuery<R> }, names?: readonly string[]) {
  const byEngine: { sqlite?: Compiled<P, R>; postgres?: Compiled<P, R> } = {};
  const placeholders = new Proxy({} as P, { get: (_, name) => `${MARK}${String(name)}` });
  return (db: Kysely<Database>, engine: 'sqlite' | 'postgres'): Compiled<P, R> => {
    const hit = byEngine[engine];
    if (hit) return hit;
    const query = build(db, placeholders).compile();
    // Where each parameter comes from: a property of the call's params, or a constant the builder
    // wrote itself (a literal state name), which stays as compiled.
    const slots: Slot[] = query.parameters.map((v) => (typeof v === 'string' && v.startsWith(MARK) ? { name: v.slice(MARK.length) } : { value: v }));
    let bind = (params: P): unknown[] => {
      const values = params as Record<string, unknown>;
      return slots.map((s) => ('name' in s ? values[s.name] : s.value));
    };
    if (names) {
      // precompiledValues: the call passes values in `names` order; as-is when that is the query's order.
      const at = new Map(names.map((n, i) => [n, i]));
      const index = slots.map((s) => ('name' in s ? (at.get(s.name) ?? -1) : -1));
      if (slots.some((s, i) => 'name' in s && index[i] === -1)) throw new Error('precompiledValues: the query uses a placeholder that `names` does not list');
      const asIs = index.length === names.length && index.every((n, i) => n === i);
      bind = asIs ? (params: P) => params as unknown as unknown[] : (params: P) => slots.map((s, i) => ('name' in s ? (params as unknown as unknown[])[index[i]!] : s.value));
    }
    const compiled = { query, bind };
    // A fixed hot text: PostgreSQL parses and plans it once per connection (prepared-statements.ts).
    if (engine === 'postgres') prepareByName(query.sql);
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
