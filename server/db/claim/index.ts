import { isPostgres } from '../engine';
import { postgresClaim } from './postgres';
import { sqliteClaim } from './sqlite';
import type { ClaimStrategy } from './types';

export type { ClaimStrategy } from './types';
export { WAKE_CHANNEL } from './postgres';

/** The claim strategy of a Kysely instance or transaction (a lookup on its adapter). */
export function claimStrategyOf(db: { getExecutor(): { readonly adapter: unknown } }): ClaimStrategy {
  return isPostgres(db) ? postgresClaim : sqliteClaim;
}
