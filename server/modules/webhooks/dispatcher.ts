import type { Db } from '../../db/database';
import { claimStrategyOf } from '../../db/claim';
import type { Clock } from '../../lib/clock';
import { createScheduler } from './dispatcher-scheduler';
import type { Outbox } from './outbox';
import type { OwnAddress } from './url-policy';

/**
 * The webhook dispatcher: sends due deliveries from the outbox (docs/webhooks.md).
 *
 * - Wakes when the outbox hook records a delivery (after the transaction commits, see
 *   outbox.ts), on PostgreSQL when another instance's outbox NOTIFYs (leases.ts), when an
 *   attempt finishes, at the next due retry, and at least every `pollIntervalMs`
 *   (deliveries queued by another process, e.g. `webhooks:redeliver`).
 *   All scheduling decisions read the injected clock, so tests move time.
 * - Claims a batch of due deliveries with one `UPDATE … RETURNING` (a lease: claimed_by +
 *   locked_until), loads their events and endpoints in two queries, and runs at most
 *   `concurrency` HTTP attempts at once over undici with keep-alive pools per origin, each
 *   connected only where the URL rules allow (http-attempt.ts, url-policy.ts).
 * - Each attempt is bounded by `attemptTimeoutMs` (10 s), covering connect, headers and
 *   the response excerpt. A slot is free when its attempt ends; outcomes are written in batches
 *   (outcome-queue.ts, one transaction per batch): an attempt row (the delivery log) and the
 *   delivery's new state (retry-policy.ts).
 * - Held deliveries (endpoint disabled, by a 410 or by hand) are never claimed. Enabling
 *   the endpoint makes them due again; they are then sent one at a time per endpoint, oldest
 *   event first (a delivery released from hold is claimable only when no older released one
 *   of its endpoint is still waiting for its first attempt).
 * - Claims and outcomes are bookkeeping (server/db/bookkeeping.ts): on SQLite their commits,
 *   when no request's write shares them, are not synced, so a power cut may take one back and
 *   the delivery is sent again. A delivery is only ever claimed once its event's commit is synced.
 * - A process that dies mid-attempt leaves a lease behind. It lapses after the timeout
 *   plus `LEASE_MARGIN_MS`; before that, a running dispatcher takes the leases of a holder it
 *   can tell is dead (leases.ts: a dropped liveness lock on PostgreSQL, a gone pid on SQLite).
 * - `stop()` stops claiming, waits up to `shutdownGraceMs` for attempts in flight, aborts
 *   the rest (recorded as aborted and due again at once), flushes every outcome and releases
 *   whatever lease is left, so another instance sends at once.
 *
 * Two parts: the scheduler (dispatcher-scheduler.ts: waking, polling, claiming, the queue
 * claimed ahead, start/stop/idle) fills the slots (dispatcher-slots.ts: the HTTP attempts,
 * at most `concurrency` at once, and their outcomes handed to the outcome queue). This file
 * holds their options and defaults.
 */

export const ATTEMPT_TIMEOUT_MS = 10_000;
export const LEASE_MARGIN_MS = 30_000;

interface DispatcherLog {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface DispatcherOptions {
  db: Db;
  clock: Clock;
  /** The composed outbox: its writes wake this dispatcher at once (other processes' writes are seen by the poll). */
  outbox: Pick<Outbox, 'onWrite'>;
  /** WEBHOOK_RETRY_DELAYS_S: the delay before retry 1, 2, … */
  retryDelaysS: readonly number[];
  /** Attempts in flight at once, across all endpoints. Default 32. */
  concurrency?: number;
  /** Per-attempt bound (connect + answer + excerpt). Default 10 s. */
  attemptTimeoutMs?: number;
  /** Longest sleep between looks at the outbox. Default 500 ms. */
  pollIntervalMs?: number;
  /** Deliveries claimed per query. Default 64. */
  batchSize?: number;
  /**
   * Deliveries claimed ahead of a free slot (leased, queued here, launched as slots free up), so
   * a claim takes a few dozen rows at once rather than the handful a batch of outcomes frees.
   * Default: `concurrency` on SQLite, 0 on PostgreSQL (where a queue here would take work the
   * other instances could send now). At most `concurrency`, so a queued delivery waits at most one
   * attempt timeout for its slot; with any, each lease is one attempt timeout longer to cover that wait.
   */
  claimAhead?: number;
  /** How long `stop()` waits for attempts in flight before aborting them. Default 8 s. */
  shutdownGraceMs?: number;
  /** Paydesk's own addresses, never called (url-policy.ts `ownAddresses`). Default none. */
  ownAddresses?: () => readonly OwnAddress[];
  log?: DispatcherLog;
}

export interface Dispatcher {
  /** Starts the loop (and releases leases of dead processes on this host). */
  start(): Promise<void>;
  /** Look at the outbox now. */
  wake(): void;
  /** Stops claiming, waits for (then aborts) attempts in flight, flushes their outcomes. */
  stop(): Promise<void>;
  /** Resolves once nothing is in flight and nothing is due (tests, benchmark). */
  idle(): Promise<void>;
  readonly owner: string;
  inFlight(): number;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The webhook dispatcher, present when the app runs background jobs. */
    webhookDispatcher?: Dispatcher;
  }
}

export function createDispatcher(opts: DispatcherOptions): Dispatcher {
  const concurrency = opts.concurrency ?? 32;
  const timeoutMs = opts.attemptTimeoutMs ?? ATTEMPT_TIMEOUT_MS;
  const strategy = claimStrategyOf(opts.db);
  const ahead = Math.max(0, Math.min(concurrency, opts.claimAhead ?? strategy.defaultAhead(concurrency)));
  return createScheduler({
    db: opts.db,
    clock: opts.clock,
    strategy,
    outbox: opts.outbox,
    retryDelaysS: opts.retryDelaysS,
    concurrency,
    ahead,
    timeoutMs,
    // The attempt, the wait in the queue when claiming ahead (at most one attempt timeout), and the margin.
    leaseMs: timeoutMs + (ahead > 0 ? timeoutMs : 0) + LEASE_MARGIN_MS,
    pollMs: opts.pollIntervalMs ?? 500,
    batchSize: opts.batchSize ?? 64,
    graceMs: opts.shutdownGraceMs ?? 8_000,
    ownAddresses: opts.ownAddresses ?? (() => []),
    log: opts.log,
  });
}
