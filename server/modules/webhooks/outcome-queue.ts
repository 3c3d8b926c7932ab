import type { Job, Outcome } from './outcomes';

/**
 * The dispatcher's outcomes, waiting to be written together.
 *
 * A slot of the dispatcher is free as soon as its attempt ends; the outcome is handed here and
 * written with others in one transaction (`write`), while the next attempt is made. A batch is
 * written:
 * - at the next turn when no attempt is still being made (a lone delivery is recorded at once),
 *   when the dispatcher is stopping, or once half of `concurrency` outcomes are waiting;
 * - else within `FLUSH_WAIT_MS`, with whatever ended meanwhile.
 * Under load a write then takes a dozen or more outcomes, and its COMMIT is shared by more
 * deliveries. Outcomes recorded while a write runs form the next batch.
 *
 * A failed write is logged and its outcomes are dropped: their leases lapse and the attempts
 * are made again (at-least-once).
 */

/** Longest an outcome waits for others to be written with it. */
export const FLUSH_WAIT_MS = 2;

export interface OutcomeQueueOptions {
  /** The dispatcher's slots: once half as many outcomes wait, they are written at once. */
  concurrency: number;
  /** Attempts being made now (with none, nothing else is coming: write at once). */
  sending(): number;
  /** The dispatcher is stopping: write at once. */
  stopping(): boolean;
  /** Writes one batch in one transaction; resolves with the deliveries claimed in it, if any. */
  write(outcomes: Outcome[]): Promise<Job[]>;
  /** Called after each write (also a failed one, with none) with the deliveries it claimed. */
  claimed(jobs: Job[]): void;
  log?: { error(obj: object, msg: string): void };
}

export interface OutcomeQueue {
  /** Queues an outcome; resolves once it is written (or its write failed and was logged). */
  record(outcome: Outcome): Promise<void>;
  /** Resolves once every outcome recorded so far is written. */
  flushed(): Promise<void>;
}

export function createOutcomeQueue(opts: OutcomeQueueOptions): OutcomeQueue {
  let pending: Array<{ outcome: Outcome; done: () => void }> = [];
  let flushing: Promise<void> | undefined;
  // A write waiting for more outcomes: its timer, and what starts it early.
  let timer: NodeJS.Timeout | undefined;
  let startNow: (() => void) | undefined;

  async function flush(): Promise<void> {
    while (pending.length > 0) {
      const batch = pending;
      pending = [];
      let next: Job[] = [];
      try {
        next = await opts.write(batch.map((b) => b.outcome));
      } catch (err) {
        opts.log?.error({ err, count: batch.length }, 'webhook outcomes could not be written');
      }
      for (const b of batch) b.done();
      opts.claimed(next);
    }
    flushing = undefined;
  }

  return {
    record(outcome) {
      return new Promise<void>((resolve) => {
        pending.push({ outcome, done: resolve });
        const now = opts.stopping() || opts.sending() === 0 || pending.length * 2 >= opts.concurrency;
        if (timer) {
          if (!now) return;
          clearTimeout(timer);
          timer = undefined;
          setImmediate(startNow!);
          return;
        }
        if (flushing) return;
        flushing = new Promise<void>((r) => {
          if (now) return setImmediate(r);
          startNow = r;
          timer = setTimeout(() => {
            timer = undefined;
            r();
          }, FLUSH_WAIT_MS);
        }).then(flush);
      });
    },
    flushed: () => flushing ?? Promise.resolve(),
  };
}
