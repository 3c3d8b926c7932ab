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

/** `values` padded to the next power of two by repeating the last one (an `in` list then matches the same rows). */
export function padded<T>(values: readonly T[]): T[] {
  const out = [...values];
  const last = values[values.length - 1];
  if (last === undefined) return out;
  let size = 1;
  while (size < values.length) size *= 2;
  while (out.length < size) out.push(last);
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
 */
export function precompiledValuesBySize<R>(build: (db: Kysely<Database>, p: Record<string, unknown>, n: number) => { compile(): CompiledQuery<R> }, names: (n: number) => string[]) {
  const bySize = new Map<number, (db: Kysely<Database>, values: readonly unknown[]) => Promise<R[]>>();
  return (db: Kysely<Database>, n: number, values: readonly unknown[]): Promise<R[]> => {
    let query = bySize.get(n);
    if (!query) {
      query = precompiledValues((d, p) => build(d, p, n), names(n));
      bySize.set(n, query);
    }
    return query(db, values);
  };
}
