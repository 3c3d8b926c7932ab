import type { CompiledQuery, Kysely } from 'kysely';
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
 * Runs through `executeQuery`, so plugins' transformQuery sees the query only at compile time:
 * do not use this for writes to credential tables (the PostgreSQL change stamp counts those per
 * query, server/db/postgres.ts).
 */
export function precompiled<P extends object, R>(build: (db: Kysely<Database>, p: P) => { compile(): CompiledQuery<R> }) {
  const byEngine: { sqlite?: CompiledQuery<R>; postgres?: CompiledQuery<R> } = {};
  const placeholders = new Proxy({} as P, { get: (_, name) => `${MARK}${String(name)}` });
  const compiledFor = (db: Kysely<Database>): CompiledQuery<R> => {
    const engine = isPostgres(db) ? 'postgres' : 'sqlite';
    const hit = byEngine[engine];
    if (hit) return hit;
    const compiled = build(db, placeholders).compile();
    byEngine[engine] = compiled;
    return compiled;
  };
  return async (db: Kysely<Database>, params: P): Promise<R[]> => {
    const compiled = compiledFor(db);
    // A constant the builder wrote itself (a literal state name) stays as compiled.
    const parameters = compiled.parameters.map((v) => (typeof v === 'string' && v.startsWith(MARK) ? (params as Record<string, unknown>)[v.slice(MARK.length)] : v));
    const result = await db.executeQuery<R>({ ...compiled, parameters });
    return result.rows;
  };
}

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
