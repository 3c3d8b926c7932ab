import type { Expression, ExpressionBuilder, SqlBool } from 'kysely';
import { invalid } from '../lib/errors';

/**
 * Keyset (cursor) pages for the back office's long lists: the next page starts after
 * the last row's (sort value, id) instead of skipping `offset` rows, so page 20,000 costs what
 * page 1 does. A cursor names the sort it was made for; using it with another is a 400.
 */
export type SortValue = string | number;

export const encodeCursor = (sort: string, dir: 'asc' | 'desc', value: SortValue, id: string): string =>
  Buffer.from(JSON.stringify([sort, dir, value, id])).toString('base64url');

/** `numeric`: the sort's value is a whole number (an amount, a count), not a text or a time. */
export function decodeCursor(cursor: string, sort: string, dir: 'asc' | 'desc', numeric = sort === 'amount_minor'): { value: SortValue; id: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid('cursor', 'is not a cursor this list returned');
  }
  if (!Array.isArray(parsed) || parsed.length !== 4 || typeof parsed[3] !== 'string' || !['string', 'number'].includes(typeof parsed[2])) {
    throw invalid('cursor', 'is not a cursor this list returned');
  }
  if (typeof parsed[2] !== (numeric ? 'number' : 'string')) throw invalid('cursor', 'is not a cursor this list returned');
  // An amount is a whole number of minor units: 1.5 or 1e999 (Infinity) would reach the query as a bad bigint.
  if (typeof parsed[2] === 'number' && !Number.isSafeInteger(parsed[2])) throw invalid('cursor', 'is not a cursor this list returned');
  if (parsed[0] !== sort || parsed[1] !== dir) throw invalid('cursor', `was made for another sort order; page sort=${sort}&dir=${dir} from the first page`);
  return { value: parsed[2] as SortValue, id: parsed[3] };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any list's query: the columns are named by the caller and the value is validated against the cursor
type AnyEb = ExpressionBuilder<any, any>;

/**
 * Rows after the cursor in `(sort, id)` order, `col` and `idCol` the qualified columns the query
 * reads them as. Written as `sort <= v AND (sort < v OR id < id0)` (for desc) rather than a
 * row-value comparison so both engines use the index on `(…, sort)` for the first term.
 */
export function afterCursor(eb: AnyEb, col: string | Expression<unknown>, idCol: string, dir: 'asc' | 'desc', c: { value: SortValue; id: string }): Expression<SqlBool> {
  const [inclusive, strict] = dir === 'desc' ? (['<=', '<'] as const) : (['>=', '>'] as const);
  return eb.and([eb(col, inclusive, c.value), eb.or([eb(col, strict, c.value), eb(idCol, strict, c.id)])]);
}

/**
 * A page read with `limit + 1` rows, cut to `limit`: the extra row says there is a next page,
 * whose cursor starts after the page's last row.
 */
export function pageOf<R extends { id: string }>(rows: R[], limit: number, sort: string, dir: 'asc' | 'desc', valueOf: (r: R) => SortValue): { page: R[]; next_cursor: string | null } {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return { page, next_cursor: rows.length > limit && last ? encodeCursor(sort, dir, valueOf(last), last.id) : null };
}
