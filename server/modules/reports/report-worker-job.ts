import type { Worker } from 'node:worker_threads';
import { AppError, ERROR_CODES, type ErrorCode } from '../../lib/errors';
import type { Chunk } from '../../http/report-stream';
import { SLOTS, type ToRunner, type ToWorker } from './report-protocol';

/** Counters of the jobs a runner ran (tests, diagnostics). */
export interface ReportStats {
  /** Jobs whose work has not ended yet (in the worker: until the worker confirms it stopped). */
  running: number;
  /** Jobs that ran to their end. */
  completed: number;
  /** Jobs stopped because their reader went away (a client that aborted the download). */
  cancelled: number;
  /** Jobs that failed. */
  failed: number;
  /** Chunks handed to readers. */
  chunks: number;
}

export const done = (): IteratorResult<Chunk> => ({ value: undefined, done: true });

function failure(m: Extract<ToRunner, { t: 'error' }>): Error {
  // The worker's AppErrors (a 400 for a too-wide audit range) keep their code; anything else is a fault.
  if (m.code !== 'INTERNAL_ERROR' && Object.hasOwn(ERROR_CODES, m.code)) return new AppError(m.code as ErrorCode, m.message);
  // A lost database connection stays one (a 503 with retry_after_seconds: server/http/errors.ts).
  const cause = m.unavailable ? Object.assign(new Error(m.message), { code: '08006' }) : undefined;
  return new Error(`report job failed in the report worker: ${m.message}`, { cause });
}

/**
 * One job in the worker, read as an async iterator. Its SLOTS byte slots are shared with the
 * worker: a credit (`more`) names a free slot, and a slot is free again when the reader releases
 * the chunk in it (the socket has written its bytes). So at most one chunk waits here while the
 * previous one is written, and a slow client holds the worker back through its socket.
 */
export class WorkerJob implements AsyncIterableIterator<Chunk> {
  private readonly queue: Chunk[] = [];
  /** The worker has stopped this job (its end, its error, its cancel confirmed, or the worker is gone). */
  private settled = false;
  /** The reader is done with it (return()): later chunks are dropped. */
  private closed = false;
  private failed: Error | null = null;
  private waiting: { resolve: (r: IteratorResult<Chunk>) => void; reject: (e: Error) => void } | null = null;
  /** A credit is out (the start message carries the first, for slot 0). */
  private asked = true;
  /** Slots neither in the worker's hands nor holding a chunk the reader has yet to release. */
  private readonly free: number[] = Array.from({ length: SLOTS - 1 }, (_, i) => i + 1);
  private readonly views: Buffer[];

  constructor(
    readonly id: number,
    readonly worker: Worker,
    readonly slots: SharedArrayBuffer,
    readonly size: number,
    private readonly stats: ReportStats,
    private readonly onSettled: (job: WorkerJob) => void,
  ) {
    this.views = Array.from({ length: SLOTS }, (_, i) => Buffer.from(slots, i * size, size));
  }

  receive(m: ToRunner): void {
    if (m.t === 'chunk') {
      this.asked = false;
      if (!this.closed) this.queue.push(this.chunk(m.slot, m.len));
    } else if (m.t === 'end') {
      if (m.cancelled) this.stats.cancelled++;
      else this.stats.completed++;
      this.settle();
    } else if (m.t === 'error') {
      this.fail(failure(m));
      return;
    }
    this.flush();
  }

  private chunk(slot: number, len: number): Chunk {
    let out = true;
    return {
      data: this.views[slot]!.subarray(0, len),
      release: () => {
        if (!out) return;
        out = false;
        this.free.push(slot);
        this.ask();
      },
    };
  }

  fail(err: Error): void {
    if (this.settled) return;
    this.stats.failed++;
    this.failed = err;
    this.settle();
    this.flush();
  }

  private settle(): void {
    this.settled = true;
    this.stats.running--;
    this.onSettled(this);
  }

  /** The next chunk may come: when none waits here and a slot is free. */
  private ask(): void {
    if (this.asked || this.settled || this.closed || this.queue.length > 0 || this.free.length === 0) return;
    this.asked = true;
    this.post({ t: 'more', id: this.id, slot: this.free.shift()! });
  }

  private post(m: ToWorker): void {
    try {
      this.worker.postMessage(m);
    } catch {
      // the worker is gone: its exit fails the job
    }
  }

  private flush(): void {
    const w = this.waiting;
    if (!w) return;
    if (this.queue.length > 0) {
      this.waiting = null;
      this.stats.chunks++;
      w.resolve({ value: this.queue.shift()!, done: false });
      this.ask();
    } else if (this.failed) {
      this.waiting = null;
      w.reject(this.failed);
    } else if (this.settled || this.closed) {
      this.waiting = null;
      w.resolve(done());
    }
  }

  next(): Promise<IteratorResult<Chunk>> {
    if (this.queue.length > 0) {
      this.stats.chunks++;
      const value = this.queue.shift()!;
      this.ask(); // the next chunk travels while this one is written
      return Promise.resolve({ value, done: false });
    }
    if (this.failed) return Promise.reject(this.failed);
    if (this.settled || this.closed) return Promise.resolve(done());
    this.ask();
    return new Promise((resolve, reject) => (this.waiting = { resolve, reject }));
  }

  async return(): Promise<IteratorResult<Chunk>> {
    if (!this.closed && !this.settled) this.post({ t: 'cancel', id: this.id });
    this.closed = true;
    this.queue.length = 0;
    const w = this.waiting;
    this.waiting = null;
    w?.resolve(done());
    return done();
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<Chunk> {
    return this;
  }
}
