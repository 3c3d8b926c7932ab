import { Histogram } from 'prom-client';

/**
 * Counts the layers below the HTTP edge keep for `/metrics` (server/http/metrics.ts): per
 * process, like the metrics themselves. Plain numbers where a count is all there is (read at
 * each scrape), prom-client histograms where a distribution is. Incrementing them costs next to
 * nothing, so they are kept whether metrics are served or not. Beside them, the database layer
 * keeps its own: `transactionRetries` (db/transaction-retries.ts) and `groupCommitStats`
 * (db/sqlite-group-commit.ts).
 */
export const operationCounts = {
  /** Webhook delivery leases taken from a holder that no longer runs (webhooks/leases.ts). */
  leaseTakeovers: 0,
  /** Times the shared (Redis) rate-limit store became unavailable and each instance counted alone. */
  rateLimitFallbacks: 0,
};

/** Members of each SQLite group commit (one fsync-bound COMMIT for all of them). */
export const commitBatchSizes = new Histogram({
  name: 'paydesk_sqlite_commit_batch_size',
  help: 'Transactions committed together by one SQLite group commit',
  buckets: [1, 2, 4, 8, 16, 32, 64, 128],
  registers: [],
});

/** Wall time of one sweeper tick (expiries, reconciliation, summary folds, search index). */
export const sweeperTickSeconds = new Histogram({
  name: 'paydesk_sweeper_tick_duration_seconds',
  help: 'Wall time of one sweeper tick',
  buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  registers: [],
});
