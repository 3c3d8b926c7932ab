import { performance } from 'node:perf_hooks';
import { bookkeeping } from '../../db/bookkeeping';
import type { Db } from '../../db/database';
import type { Clock } from '../../lib/clock';
import { createWebhookHttpClient, describeAttemptError } from './http-attempt';
import { createOutcomeQueue } from './outcome-queue';
import { bodyPastRetention, createOutcomeWriter, type AttemptResult, type Job, type Outcome } from './outcomes';
import { activeSecrets, deliveryHeaders } from './signing';
import type { OwnAddress } from './url-policy';

/**
 * The dispatcher's slots (dispatcher.ts): at most `concurrency` HTTP attempts at once. A
 * delivery launched into a free slot is attempted (or, its endpoint no longer active, held);
 * the slot is free again as soon as the attempt ends, and the outcome goes to the outcome
 * queue (outcome-queue.ts), which writes it with others in one bookkeeping transaction
 * (outcomes.ts) while the next attempt is made. What fills the slots, and when, is the
 * scheduler's (dispatcher-scheduler.ts): it is told when a slot frees and when a delivery is
 * recorded, and may claim more in the transaction that writes the outcomes (`claimAlong`).
 */

const USER_AGENT = 'Paydesk-Webhooks/2026-06';

interface SlotsOptions {
  db: Db;
  clock: Clock;
  /** The lease holder whose outcomes are written (leases.ts). */
  owner: string;
  retryDelaysS: readonly number[];
  concurrency: number;
  /** Per-attempt bound (connect + answer + excerpt). */
  timeoutMs: number;
  /** Paydesk's own addresses, never called, as last read (at a claim). */
  own(): readonly OwnAddress[];
  /** Whether the dispatcher is stopping: outcomes are then written at once. */
  stopping(): boolean;
  /** Claims in the transaction that writes a batch of outcomes (where the engine does); resolves with what it leased. */
  claimAlong(trx: Db): Promise<Job[]> | Job[];
  /** After each batch of outcomes (also a failed one, with none): the deliveries claimed along it. */
  claimed(jobs: Job[]): void;
  /** An attempt ended: its slot is free (its outcome is not yet written). */
  freed(): void;
  /** A delivery launched is recorded (or could not be, and was logged): it is no longer in flight. */
  settled(): void;
  log?: { error(obj: object, msg: string): void };
}

interface Slots {
  /** Attempts being made now. */
  sending(): number;
  /** Deliveries launched and not yet recorded. */
  inFlight(): number;
  /** Their ids (this dispatcher holds their leases). */
  inFlightIds(): IterableIterator<string>;
  /** Takes a free slot for `job` (the caller checks there is one). */
  launch(job: Job): void;
  /** Resolves once every delivery in flight now is recorded. */
  settled(): Promise<void>;
  /** Cuts every attempt still being made: each is recorded as aborted. */
  abort(): void;
  /** Resolves once every outcome handed to the outcome queue so far is written. */
  flushed(): Promise<void>;
  /** Closes the HTTP client's connection pools. */
  close(): void;
}

export function createSlots(opts: SlotsOptions): Slots {
  const { db, clock, timeoutMs } = opts;
  const shutdown = new AbortController();
  const client = createWebhookHttpClient();
  const writer = createOutcomeWriter({ clock, delaysS: opts.retryDelaysS, owner: opts.owner });

  // Every delivery launched and not yet recorded: its attempt, then its outcome's write.
  const inFlight = new Map<string, Promise<void>>();
  // Attempts being made (HTTP): the slots `concurrency` bounds. A slot is free again as soon as its
  // attempt ends; the outcome is written with others (`outcomes`), while the next attempt is made.
  let sending = 0;

  const outcomes = createOutcomeQueue({
    concurrency: opts.concurrency,
    sending: () => sending,
    stopping: opts.stopping,
    // Bookkeeping (server/db/bookkeeping.ts): on SQLite, a batch committed alone is not synced.
    write: (batch) =>
      bookkeeping(db, async (trx) => {
        await writer.writeBatch(trx, batch);
        return opts.claimAlong(trx);
      }),
    claimed: opts.claimed,
    log: opts.log,
  });

  function launch(job: Job): void {
    sending++;
    const p = (async () => {
      let outcome: Outcome;
      try {
        outcome = job.endpoint.status !== 'active' ? { type: 'hold', job } : { type: 'attempt', result: await attempt(job) };
      } finally {
        // The slot is free: the next queued delivery is sent while this outcome waits for its write.
        sending--;
        opts.freed();
      }
      await outcomes.record(outcome);
    })()
      .catch((err: unknown) => opts.log?.error({ err, delivery: job.id }, 'webhook attempt could not be recorded'))
      .finally(() => {
        inFlight.delete(job.id);
        opts.settled();
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
      // Bounded by timeoutMs; abort() cuts every attempt still in flight (client.abortAll).
      const res = await client.post(job.endpoint.url, headers, job.event.payload, { mode: job.endpoint.mode, own: opts.own() }, timeoutMs);
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

  return {
    sending: () => sending,
    inFlight: () => inFlight.size,
    inFlightIds: () => inFlight.keys(),
    launch,
    settled: async () => {
      await Promise.allSettled([...inFlight.values()]);
    },
    abort() {
      shutdown.abort();
      client.abortAll();
    },
    flushed: () => outcomes.flushed(),
    close: () => client.close(),
  };
}
