import { isPostgres } from '../engine';
import { postgresDialect } from './postgres';
import { sqliteDialect } from './sqlite';
import type { Dialect } from './types';

export type { Dialect } from './types';

/** The dialect of a Kysely instance or transaction: a lookup on its adapter, no allocation. */
export function dialectOf(db: { getExecutor(): { readonly adapter: unknown } }): Dialect {
  return isPostgres(db) ? postgresDialect : sqliteDialect;
}
