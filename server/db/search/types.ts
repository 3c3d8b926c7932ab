import type { Expression, ExpressionBuilder, SelectQueryBuilder, SqlBool } from 'kysely';
import type { Db } from '../database';
import type { Database } from '../schema';

/** The list's query: sessions `s` with their merchant `m` (server/modules/finance/finance.service.ts). */
type SessionTables = Database & { s: Database['checkout_sessions']; m: Database['merchants'] };
export type SessionEb = ExpressionBuilder<SessionTables, 's' | 'm'>;

export interface SearchScope {
  merchantId: string;
  /** At most this many sessions per part (the newest): LIST_TOTAL_CAP. */
  cap: number;
  /** The injected clock's now, in ms (postgres-words.ts refreshes its sample by it). */
  now: number;
  /** PostgreSQL: read a 3+ character text day by day (true) or from the whole index (false); unset, the sample decides. */
  byDay?: boolean;
}

/**
 * What the search returns and the list is matched on: the session's rowid on SQLite (the FTS5
 * index's own key, and a lookup without an index in between), its id on PostgreSQL (no rowid
 * there).
 */
export type Key = string | number;

/**
 * PostgreSQL, a capped broad text read day by day: its newest `cap` sessions, said without
 * listing them: every session of the merchant matching the text whose (created_at, id) is at or
 * after `from` (the cap-th newest, ties broken by id as every list) and no newer than `newest`.
 * The walk returns only this (windowByDay), and the list reads its page among those sessions
 * by the merchant's (merchant_id, created_at, id) index, rechecking the text on each row it
 * walks (`among`): 10,000 ids no longer travel to the server and back.
 */
export interface HitWindow {
  from: { created_at: string; id: string };
  newest: string;
  /** The text as searched, and the column it was searched in (`only`). */
  q: string;
  only?: 'invoice_ref';
}

/** The sessions a search found: at most `cap` per part, `capped` when a part had more. */
export interface SearchHits {
  /** The sessions found, but for those of `window`. */
  keys: Key[];
  /** The "contains" part, when it was capped on a day-by-day read (PostgreSQL), else null. */
  window: HitWindow | null;
  capped: boolean;
  /** The merchant has more than `cap` sessions of the "contains" (or short ref) part alone. */
  full: boolean;
  /** PostgreSQL: the oldest and newest `created_at` of the sessions found, the window's too (null when none, and on SQLite). */
  span: { oldest: string; newest: string } | null;
}

/** One session a part found: its key, and on PostgreSQL its `created_at`. */
export type Hit = { k: Key; created_at?: string };


/**
 * The finance session search (common.ts says what it matches and how it stays an index lookup),
 * one implementation per engine: sqlite.ts (FTS5 trigram ranges filled behind the writes,
 * sqlite-index.ts) and postgres.ts (pg_trgm indexes, a broad text read day by day). Each is a
 * constant: its methods take the database, so a request allocates no search object.
 */
export interface SessionSearch {
  /** Before a "contains" search: the sessions written since the index last caught up are made searchable (read-your-writes). */
  catchUp(db: Db): Promise<void>;
  /**
   * The sessions a text finds, read once per request: for `q` its exact parts and "contains"
   * parts, for the `invoice_ref` filter (`only`) the ref contains the text (3+ characters) or is
   * it (shorter). Each part at most `cap` (the newest for "contains"), `capped` if it had more.
   */
  hits(db: Db, text: string, scope: SearchScope, only?: 'invoice_ref'): Promise<SearchHits>;
  /** The list's condition for its rows to be among the sessions found (`byTime`: the list is ordered by created_at). */
  among(eb: SessionEb, scope: SearchScope, hits: SearchHits, byTime: boolean): Expression<SqlBool>;
  /**
   * A page of a searched list: `ordered` orders a query as the page is (its sort, then id). On
   * SQLite the page's rowids are sorted first and only its rows then read (`base`, the list's
   * select without conditions): sorting a search's sessions (up to the cap) with each whole row
   * in the sorter cost twice as much (29 → 13 ms for "Payer 1" at a million, docs/performance.md).
   */
  page<O>(list: SelectQueryBuilder<SessionTables, 's' | 'm', O>, base: SelectQueryBuilder<SessionTables, 's' | 'm', O>, ordered: (q: SelectQueryBuilder<SessionTables, 's' | 'm', O>) => SelectQueryBuilder<SessionTables, 's' | 'm', O>, limit: number, offset: number): Promise<O[]>;
}
