import { sql, type SelectQueryBuilder } from 'kysely';
import type { Db } from '../db/database';

/**
 * Bounded totals of the back-office lists. An exact `total` is a COUNT over every
 * matching row, and at a million sessions that count is most of what a page costs; so a list
 * counts at most `cap` + 1 matching rows (LIST_TOTAL_CAP, 10,000 by default, config.listTotalCap)
 * and says whether it stopped there: `total_capped: true` means `total` (= the cap) is a lower
 * bound, shown as "10,000+". Pages past the cap are still served (by cursor, or by offset).
 */
export const LIST_TOTAL_CAP = 10_000;

export interface ListTotal {
  total: number;
  total_capped: boolean;
}

/**
 * `q` is the list's own query with its filters (its select list is dropped, and its order unless
 * `keepOrder`): `SELECT COUNT(*) FROM (SELECT 1 FROM … WHERE … LIMIT cap + 1)`, which stops
 * reading at cap + 1 rows. `keepOrder` is for a filter no index serves: the count then walks the
 * rows in the page's own order (a rowid walk) and stops where the page would, instead of letting
 * the planner scan the whole table from another side.
 */
export async function boundedTotal<DB, TB extends keyof DB, O>(db: Db, q: SelectQueryBuilder<DB, TB, O>, cap: number, opts: { keepOrder?: boolean } = {}): Promise<ListTotal> {
  const picked = q.clearSelect().select(sql<number>`1`.as('one'));
  const probe = (opts.keepOrder ? picked : picked.clearOrderBy()).limit(cap + 1);
  const r = await sql<{ n: number | string }>`SELECT COUNT(*) AS n FROM (${probe}) AS matching`.execute(db);
  const n = Number(r.rows[0]?.n ?? 0);
  return n > cap ? { total: cap, total_capped: true } : { total: n, total_capped: false };
}
