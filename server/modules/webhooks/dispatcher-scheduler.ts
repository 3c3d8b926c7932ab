import { performance } from 'node:perf_hooks';
import type { Db } from '../../db/database';
import type { ClaimStrategy } from '../../db/claim';
import type { Clock } from '../../lib/clock';
import { claimDue } from './claim';
import { createSlots } from './dispatcher-slots';
import { createLeases, ORPHAN_CHECK_MS } from './leases';
import type { Outbox } from './outbox';
import type { Job } from './outcomes';
import type { OwnAddress } from './url-policy';

/**
 * The dispatcher's scheduler (dispatcher.ts): when to look at the outbox, what to claim, and
 * the queue of deliveries claimed ahead of a free slot. It wakes on the outbox's writes, on
 * another instance's NOTIFY (leases.ts), when a slot frees or a delivery is recorded, at the
 * next due retry and at least every `pollMs`; each look (`tick`) fills the free slots and the
 * queue from claims (claim.ts, as the engine runs one: server/db/claim/), and on SQLite the
 * transaction that writes outcomes claims again (`claimAlong`). The slots
 * (dispatcher-slots.ts) make the attempts and hand their outcomes to the writer. `stop()`
 * stops claiming, waits up to `graceMs` for the slots, aborts the rest, flushes the outcomes
 * and releases the leases left.
 */

interface SchedulerLog {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

interface SchedulerOptions {
  db: Db;
  clock: Clock;
  /** The engine's claim (claimStrategyOf(db)). */
  strategy: ClaimStrategy;
  outbox: Pick<Outbox, 'onWrite'>;
  retryDelaysS: readonly number[];
  /** Attempts in flight at once. */
  concurrency: number;
  /** Deliveries claimed ahead of a free slot (0 ≤ ahead ≤ concurrency). */
  ahead: number;
  /** Per-attempt bound. */
  timeoutMs: number;
  /** How long a claim's lease runs. */
  leaseMs: number;
  /** Longest sleep between looks at the outbox. */
  pollMs: number;
  /** Deliveries claimed per query. */
  batchSize: number;
  /** How long `stop()` waits for attempts in flight before aborting them. */
  graceMs: number;
  ownAddresses: () => readonly OwnAddress[];
  log?: SchedulerLog;
}

interface Scheduler {
  readonly owner: string;
  start(): Promise<void>;
  wake(): void;
  stop(): Promise<void>;
  idle(): Promise<void>;
  inFlight(): number;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());

export function createScheduler(opts: SchedulerOptions): Scheduler {
  const { db, clock, strategy, concurrency, ahead, pollMs, batchSize } = opts;
  const leases = createLeases({ db, clock, onWake: () => wake(), log: opts.log });
  const owner = leases.owner;
  // Paydesk's own addresses, read again at each claim (they change only when the listener is
  // bound) rather than at each attempt: each read parses the configured URLs.
  let own: readonly OwnAddress[] = [];
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

  const slots = createSlots({
    db,
    clock,
    owner,
    retryDelaysS: opts.retryDelaysS,
    concurrency,
    timeoutMs: opts.timeoutMs,
    own: () => own,
    stopping: () => stopping,
    claimAlong,
    claimed(jobs) {
      for (const job of jobs) queued.push(job);
      launchQueued();
    },
    freed() {
      launchQueued();
      if (queued.length === 0) wake();
    },
    settled: () => wake(),
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
          while (!stopping && slots.sending() + queued.length < concurrency) {
            const want = Math.min(batchSize, concurrency + ahead - slots.sending() - queued.length);
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
    if (slots.sending() >= concurrency) return armIn(pollMs);
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
    const ids = [...slots.inFlightIds()];
    for (const job of queued) ids.push(job.id);
    return ids;
  }

  /** Launches queued deliveries into free slots. */
  function launchQueued(): void {
    while (!stopping && slots.sending() < concurrency && queued.length > 0) slots.launch(queued.shift()!);
  }

  function claim(limit: number, on: Db = db, busy: readonly string[] = held()): Promise<Job[]> {
    own = opts.ownAddresses();
    const now = clock.now();
    // The lease covers the attempt, the wait in the queue when claiming ahead, and the margin (dispatcher.ts).
    const lease = new Date(now.getTime() + opts.leaseMs).toISOString();
    return claimDue(on, { owner, now: now.toISOString(), lease, limit, busy });
  }

  /** A claim on its own (not along with outcomes), as the engine runs one (server/db/claim/). */
  function claimNow(limit: number): Promise<Job[]> {
    return strategy.claimAlone(db, (on) => claim(limit, on));
  }

  /**
   * Where the engine claims along outcomes (SQLite, server/db/claim/): the slots these outcomes
   * free are claimed again in the transaction that writes them, so a round of the fan-out costs
   * one COMMIT instead of two (the claim's own, then the outcomes'): each COMMIT writes the pages
   * it changed and the header page to the WAL. Only when fewer than half of `ahead` are queued:
   * then enough is claimed to fill every slot and the queue (a claim's cost is mostly per query,
   * not per row). Queued once it commits. PostgreSQL keeps claiming in `tick` (a claim here
   * would hold its row locks for the outcomes' transaction; not measured there).
   */
  function claimAlong(trx: Db): Promise<Job[]> | Job[] {
    if (stopping || !strategy.claimsAlongOutcomes) return [];
    const busy = held();
    if (ahead > 0 && queued.length >= ahead / 2) return [];
    const room = Math.min(batchSize, concurrency + ahead - slots.sending() - queued.length);
    // The outcomes being written stay in `busy`: one due again at once is claimed by a later round, not relaunched beside itself.
    return room > 0 ? claim(room, trx, busy) : [];
  }

  return {
    owner,
    inFlight: () => slots.inFlight(),
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
      const waiting = slots.settled();
      const inTime = await Promise.race([waiting.then(() => true), sleep(opts.graceMs).then(() => false)]);
      if (!inTime) {
        opts.log?.warn({ inFlight: slots.inFlight() }, 'webhook attempts still in flight at shutdown: aborting them (they will be sent again)');
        slots.abort();
        await slots.settled();
      }
      await slots.flushed();
      queued = [];
      // Anything still leased here (a claim whose outcome could not be written) is due again now, elsewhere.
      await leases.releaseOwn().catch((err: unknown) => opts.log?.error({ err }, 'webhook leases could not be released at shutdown (they lapse)'));
      await leases.close();
      slots.close();
    },
    async idle() {
      // Whatever is due and not leased elsewhere is claimed by tick(); done when none was. A tick
      // already running may be past its claims (waiting in arm()): joining it would miss what was
      // written since, so it is awaited and a tick of our own runs after it.
      while (!stopping) {
        if (ticking) await ticking;
        await tick();
        if (slots.inFlight() === 0 && queued.length === 0) return;
        await slots.settled();
      }
    },
  };
}
