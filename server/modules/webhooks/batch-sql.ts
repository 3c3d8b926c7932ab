import type { CompiledQuery, Kysely } from 'kysely';
import { precompiled } from '../../db/precompiled';
import type { Database } from '../../db/schema';

/**
 * The dispatcher's batch queries (an `in` list of claimed ids, a multi-row insert of attempt
 * rows) with few SQL shapes: lists are padded and inserts chunked to powers of two, so each
 * query has ~7 SQL texts instead of one per batch size (the prepared-statement cache of
 * server/db/database.ts keeps a handful of them, not ~250). The attempt-row insert, the
 * largest to build, is also compiled by Kysely once per shape (`precompiledBySize`).
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
 * `precompiled` (server/db/precompiled.ts) for a query whose shape depends on a size `n`
 * (a padded list's length, a chunk's row count): one compiled query per size, made on first use.
 */
export function precompiledBySize<R>(build: (db: Kysely<Database>, p: Record<string, unknown>, n: number) => { compile(): CompiledQuery<R> }) {
  const bySize = new Map<number, (db: Kysely<Database>, params: Record<string, unknown>) => Promise<R[]>>();
  return (db: Kysely<Database>, n: number, params: Record<string, unknown>): Promise<R[]> => {
    let query = bySize.get(n);
    if (!query) {
      query = precompiled((d, p: Record<string, unknown>) => build(d, p, n));
      bySize.set(n, query);
    }
    return query(db, params);
  };
}
