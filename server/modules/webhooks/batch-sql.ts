import type { CompiledQuery, Kysely } from 'kysely';
import { precompiledValues } from '../../db/precompiled';
import type { Database } from '../../db/schema';

/**
 * The dispatcher's batch queries (an `in` list of claimed ids, a multi-row insert of attempt
 * rows) with few SQL shapes: lists are padded and inserts chunked to powers of two, so each
 * query has ~7 SQL texts instead of one per batch size (the prepared-statement cache of
 * server/db/database.ts keeps a handful of them, not ~250). The attempt-row insert, the
 * largest to build, is also compiled by Kysely once per shape (`precompiledValuesBySize`).
 */

/**
 * Pads the elements of `list` from index `from` to the next power of two by repeating the last
 * one (an `in` list then matches the same rows), in place; returns how many there are now (0 when
 * none). In place and by push, so a query's parameter array is one array of one elements kind,
 * whatever the sizes: a spread copy (`[...values]`, `[a, b, ...ids]`) of an array that `map` made
 * changed its hidden class with the size, and the optimised outcome writer was thrown away at
 * `ids.length` in the first webhook burst (a "wrong map" deopt).
 */
export function padTail<T>(list: T[], from = 0): number {
  const n = list.length - from;
  if (n <= 0) return 0;
  let size = 1;
  while (size < n) size *= 2;
  const last = list[list.length - 1]!;
  while (list.length - from < size) list.push(last);
  return size;
}

/** `values` padded to the next power of two by repeating the last one (`padTail` on a copy). */
export function padded<T>(values: Iterable<T>): T[] {
  const out: T[] = [];
  for (const v of values) out.push(v);
  padTail(out);
  return out;
}

/** Consecutive chunks of `rows` whose sizes are powers of two, at most `max`. */
export function powerOfTwoChunks<T>(rows: readonly T[], max = 32): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < rows.length; ) {
    let size = max;
    while (size > rows.length - i) size /= 2;
    out.push(rows.slice(i, i + size));
    i += size;
  }
  return out;
}

/**
 * `precompiled` (server/db/precompiled.ts) for a query whose shape depends on a size `n` (a
 * padded list's length, a chunk's row count): one compiled query per size, made on first use,
 * called with the parameter values themselves (`precompiledValues`) in the order `names(n)` gives.
 * `statement` is what such a call runs (the compiled text and the values), for EXPLAIN.
 */
export function precompiledValuesBySize<R>(build: (db: Kysely<Database>, p: Record<string, unknown>, n: number) => { compile(): CompiledQuery<R> }, names: (n: number) => string[]) {
  const bySize = new Map<number, ReturnType<typeof precompiledValues<R>>>();
  const ofSize = (n: number) => {
    let query = bySize.get(n);
    if (!query) {
      query = precompiledValues((d, p) => build(d, p, n), names(n));
      bySize.set(n, query);
    }
    return query;
  };
  const run = (db: Kysely<Database>, n: number, values: readonly unknown[]): Promise<R[]> => ofSize(n)(db, values);
  const statement = (db: Kysely<Database>, n: number, values: readonly unknown[]): CompiledQuery<R> => ofSize(n).statement(db, values);
  return Object.assign(run, { statement });
}
