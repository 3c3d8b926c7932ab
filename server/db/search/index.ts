import { isPostgres } from '../engine';
import { postgresSearch } from './postgres';
import { sqliteSearch } from './sqlite';
import type { SessionSearch } from './types';

export type { SearchHits, SearchScope, SessionSearch } from './types';
export { likeEscape, merchantScope, monthsBetween, searchable, sessionAmount } from './common';
export { DENSE_DAY_FROM } from './postgres';
export { rebuildSearchIndex, searchIndexJob } from './sqlite-index';

/** The session search of a Kysely instance (a lookup on its adapter; the search is a constant). */
export function sessionSearchOf(db: { getExecutor(): { readonly adapter: unknown } }): SessionSearch {
  return isPostgres(db) ? postgresSearch : sqliteSearch;
}
