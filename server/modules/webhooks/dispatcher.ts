import { performance } from 'node:perf_hooks';
import { bookkeeping } from '../../db/bookkeeping';
import type { Db } from '../../db/database';
import { claimStrategyOf } from '../../db/claim';
import type { Clock } from '../../lib/clock';
import { createWebhookHttpClient, describeAttemptError } from './http-attempt';
import { createLeases, ORPHAN_CHECK_MS } from './leases';
import type { Outbox } from './outbox';
import { claimDue } from './claim';
import { createOutcomeQueue } from './outcome-queue';
import { bodyPastRetention, createOutcomeWriter, type AttemptResult, type Job, type Outcome } from './outcomes';
import { activeSecrets, deliveryHeaders } from './signing';
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
 */

export const ATTEMPT_TIMEOUT_MS = 10_000;
export const LEASE_MARGIN_MS = 30_000;
const USER_AGENT = 'Paydesk-Webhooks/2026-06';

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
   * attempt timeout for its slot; with any, a lease covers that wait too (`claim`).
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

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());

export function createDispatcher(opts: DispatcherOptions): Dispatcher {
  const { db, clock } = opts;
  const concurrency = opts.concurrency ?? 32;
  const timeoutMs = opts.attemptTimeoutMs ?? ATTEMPT_TIMEOUT_MS;
  const pollMs = opts.pollIntervalMs ?? 500;
  const batchSize = opts.batchSize ?? 64;
  const graceMs = opts.shutdownGraceMs ?? 8_000;
  const strategy = claimStrategyOf(db);
  const ahead = Math.max(0, Math.min(concurrency, opts.claimAhead ?? strategy.defaultAhead(concurrency)));
  const leases = createLeases({ db, clock, onWake: () => wake(), log: opts.log });
  const owner = leases.owner;
  const shutdown = new AbortController();
  const client = createWebhookHttpClient();
  const writer = createOutcomeWriter({ clock, delaysS: opts.retryDelaysS, owner });
  const ownAddresses = opts.ownAddresses ?? (() => []);
  // Paydesk's own addresses, read again at each claim (they change only when the listener is
  // bound) rather than at each attempt: each read parses the configured URLs.
  let own: readonly OwnAddress[] = [];

  // Every delivery launched and not yet recorded: its attempt, then its outcome's write.
  const inFlight = new Map<string, Promise<void>>();
  // Attempts being made (HTTP): the slots `concurrency` bounds. A slot is free again as soon as its
  // attempt ends; the outcome is written with others (`outcomes`), while the next attempt is made.
  let sending = 0;
  // Claimed ahead (leased by this owner), oldest claim first: launched as slots free up.
  let queued: Job[] = [];
  let started = false;
  let stopping = false;
  let timer: NodeJS.Timeout | undefined;
  let wakeQueued = false;
  let ticking: Promise<void> | undefined;
  let tickAgain = false;
  let unsubscribe: (() => void) | undefined;

  let lastOrphanCheck = performance.now();
  const outcomes = createOutcomeQueue({
    concurrency,
    sending: () => sending,
    stopping: () => stopping,
    // Bookkeeping (server/db/bookkeeping.ts): on SQLite, a batch committed alone is not synced.
    write: (batch) =>
      bookkeeping(db, async (trx) => {
        await writer.writeBatch(trx, batch);
        return claimAlong(trx);
      }),
    claimed(jobs) {
      for (const job of jobs) queued.push(job);
      launchQueued();
    },
    log: opts.log,
  });

  function wake(): void {
    if (!started || stopping || wakeQueued) return;
    wakeQueued = true;
    setImmediate(() => {
      wakeQueued = false;
      void tick();
    });
  }

  function tick(): Promise<void> {
    if (ticking) {
      tickAgain = true;
      return ticking;
    }
    ticking = (async () => {
      try {
        // Another process on this host that died (kill -9) left leases: take them now rather
        // than when they lapse. Checked every ORPHAN_CHECK_MS, not only at start, because with
        // several instances on one database the survivor is already running.
        await leases.ready(); // PostgreSQL: nothing is claimed without the liveness lock held
        if (performance.now() - lastOrphanCheck >= ORPHAN_CHECK_MS) {
          lastOrphanCheck = performance.now();
          await leases.releaseOrphaned();
        }
        do {
          tickAgain = false;
          launchQueued();
          while (!stopping && sending + queued.length < concurrency) {
            const want = Math.min(batchSize, concurrency + ahead - sending - queued.length);
            const jobs = await claimNow(want);
            for (const job of jobs) queued.push(job);
            launchQueued();
            if (jobs.length < want) break;
          }
        } while (tickAgain && !stopping);
        await arm();
      } catch (err) {
        opts.log?.error({ err }, 'webhook dispatcher tick failed');
        armIn(pollMs);
      } finally {
        ticking = undefined;
      }
    })();
    return ticking;
  }

  function armIn(ms: number): void {
    if (stopping) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      void tick();
    }, ms);
    timer.unref();
  }

  /** Sleeps until the next due retry, or the poll interval, whichever is sooner. */
  async function arm(): Promise<void> {
    if (stopping) return;
    // Every slot busy: each attempt that ends wakes the loop, so only the poll is armed.
    if (sending >= concurrency) return armIn(pollMs);
    const next = await db
      .selectFrom('webhook_deliveries')
      .select((eb) => eb.fn.min('next_attempt_at').as('at'))
      .where('status', '=', 'pending')
      .executeTakeFirst();
    const at = next?.at ? Date.parse(next.at) - clock.now().getTime() : pollMs;
    armIn(Math.max(5, Math.min(pollMs, at)));
  }

  /** Ids this dispatcher holds a lease on: in flight and queued. */
  function held(): string[] {
    const ids = [...inFlight.keys()];
    for (const job of queued) ids.push(job.id);
    return ids;
  }

  /** Launches queued deliveries into free slots. */
  function launchQueued(): void {
    while (!stopping && sending < concurrency && queued.length > 0) launch(queued.shift()!);
  }

  function claim(limit: number, on: Db = db, busy: readonly string[] = held()): Promise<Job[]> {
    own = ownAddresses();
    const now = clock.now();
    // The attempt, the wait in the queue when claiming ahead (at most one attempt timeout), and the margin.
    const lease = new Date(now.getTime() + timeoutMs + (ahead > 0 ? timeoutMs : 0) + LEASE_MARGIN_MS).toISOString();
    return claimDue(on, { owner, now: now.toISOString(), lease, limit, busy });
  }

  /** A claim on its own (not along with outcomes), as the engine runs one (server/db/claim/). */
  function claimNow(limit: number): Promise<Job[]> {
    return strategy.claimAlone(db, (on) => claim(limit, on));
  }

  function launch(job: Job): void {
    sending++;
    const p = (async () => {
      let outcome: Outcome;
      try {
        outcome = job.endpoint.status !== 'active' ? { type: 'hold', job } : { type: 'attempt', result: await attempt(job) };
      } finally {
        // The slot is free: the next queued delivery is sent while this outcome waits for its write.
        sending--;
        launchQueued();
        if (queued.length === 0) wake();
      }
      await outcomes.record(outcome);
    })()
      .catch((err: unknown) => opts.log?.error({ err, delivery: job.id }, 'webhook attempt could not be recorded'))
      .finally(() => {
        inFlight.delete(job.id);
        wake();
      });
    inFlight.set(job.id, p);
  }

  async function attempt(job: Job): Promise<AttemptResult> {
    const started = clock.now();
    const kind = job.manual_requested_at ? 'manual' : job.attempt_count === 0 ? 'initial' : 'automatic_retry';
    if (job.event.payload === '') return bodyPastRetention(job, kind, started.toISOString());
    const t = Math.floor(started.getTime() / 1000);
    const headers = {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      ...deliveryHeaders(job.event, activeSecrets(job.endpoint, started), t),
    };
    const t0 = performance.now();
    let statusCode: number | null = null;
    let error: string | null = null;
    let excerpt: string | null = null;
    let retryAfter: string | null = null;
    let responseHeaders: string | null = null;
    try {
      // Bounded by timeoutMs; stop() cuts every attempt still in flight (client.abortAll).
      const res = await client.post(job.endpoint.url, headers, job.event.payload, { mode: job.endpoint.mode, own }, timeoutMs);
      ({ statusCode, retryAfter, responseHeaders, excerpt } = res);
    } catch (err) {
      error = describeAttemptError(err, timeoutMs);
    }
    return {
      job,
      kind,
      startedAt: started.toISOString(),
      latencyMs: Math.round(performance.now() - t0),
      statusCode,
      error,
      excerpt,
      retryAfter,
      aborted: statusCode === null && shutdown.signal.aborted,
      requestHeaders: JSON.stringify(headers),
      responseHeaders,
    };
  }

  /**
   * Where the engine claims along outcomes (SQLite, server/db/claim/): the slots these outcomes free are claimed again in the transaction that writes them,
   * so a round of the fan-out costs one COMMIT instead of two (the claim's own, then the
   * outcomes'): each COMMIT writes the pages it changed and the header page to the WAL.
   * Only when fewer than half of `ahead` are queued: then enough is claimed to fill every slot and
   * the queue (a claim's cost is mostly per query, not per row). Queued once
   * it commits. PostgreSQL keeps
   * claiming in `tick` (a claim here would hold its row locks for the outcomes' transaction; not
   * measured there).
   */
  function claimAlong(trx: Db): Promise<Job[]> | Job[] {
    if (stopping || !strategy.claimsAlongOutcomes) return [];
    const busy = held();
    if (ahead > 0 && queued.length >= ahead / 2) return [];
    const room = Math.min(batchSize, concurrency + ahead - sending - queued.length);
    // The outcomes being written stay in `busy`: one due again at once is claimed by a later round, not relaunched beside itself.
    return room > 0 ? claim(room, trx, busy) : [];
  }

  return {
    owner,
    inFlight: () => inFlight.size,
    async start() {
      if (started) return;
      started = true;
      await leases.ready().catch((err: unknown) => opts.log?.error({ err }, 'webhook dispatcher could not open its PostgreSQL listener (retried on each tick)'));
      await leases.releaseOrphaned().catch((err: unknown) => opts.log?.error({ err }, 'webhook dispatcher could not release dead holders\' leases'));
      unsubscribe = opts.outbox.onWrite(wake);
      await tick();
    },
    wake,
    async stop() {
      if (stopping) return;
      stopping = true;
      unsubscribe?.();
      if (timer) clearTimeout(timer);
      await ticking;
      const waiting = Promise.allSettled([...inFlight.values()]);
      const inTime = await Promise.race([waiting.then(() => true), sleep(graceMs).then(() => false)]);
      if (!inTime) {
        opts.log?.warn({ inFlight: inFlight.size }, 'webhook attempts still in flight at shutdown: aborting them (they will be sent again)');
        shutdown.abort();
        client.abortAll();
        await Promise.allSettled([...inFlight.values()]);
      }
      await outcomes.flushed();
      queued = [];
      // Anything still leased here (a claim whose outcome could not be written) is due again now, elsewhere.
      await leases.releaseOwn().catch((err: unknown) => opts.log?.error({ err }, 'webhook leases could not be released at shutdown (they lapse)'));
      await leases.close();
      client.close();
    },
    async idle() {
      // Whatever is due and not leased elsewhere is claimed by tick(); done when none was. A tick
      // already running may be past its claims (waiting in arm()): joining it would miss what was
      // written since, so it is awaited and a tick of our own runs after it.
      while (!stopping) {
        if (ticking) await ticking;
        await tick();
        if (inFlight.size === 0 && queued.length === 0) return;
        await Promise.allSettled([...inFlight.values()]);
      }
    },
  };
}
