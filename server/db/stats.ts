/**
 * Counters of the database layer that `/metrics` reads (server/http/metrics.ts), per process
 * like the metrics.
 */

export { transactionRetries } from './transaction-retries';
export { roundTrips } from './round-trips';
export { groupCommitStats } from './sqlite-group-commit';
export type { CheckpointStats } from './sqlite-checkpointer';

/** A connection pool's counts (PostgreSQL's pg.Pool); SQLite has one connection and no pool. */
export interface PoolStats {
  readonly totalCount: number;
  readonly idleCount: number;
  readonly waitingCount: number;
}
