import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { FastifyBaseLogger } from 'fastify';
import { postgresUrlOf, sqliteFileOf, type Db } from '../../db/database';
import { AppError, ERROR_CODES, type ErrorCode } from '../../lib/errors';
import { reportJobs, type ReportJob, type ReportJobs } from './report-jobs';
import type { ReportSource, ToRunner, ToWorker } from './report-protocol';

/**
 * Runs the back office's long reads (report-jobs.ts) off the request path, in one worker thread
 * with its own read-only connection: on SQLite on the same file (WAL: its reads never block the
 * server's writes), on PostgreSQL one connection from the same DATABASE_URL (issue 18: in-process,
 * parsing a year of rows and building its CSV grew the server's heap by ~98 MB and stalled its
 * loop 29 ms at a million sessions). The worker is created at the first report and ended after
 * IDLE_MS without one, so an idle server carries no second thread (nor a second connection).
 * In-process: a SQLite database in memory, a handle derived from the server's (a test's SQL
 * recorder), and any place the worker cannot start (logged once).
 */
export interface ReportRunner {
  /**
   * The job's text chunks, paced by the reader: the worker prepares at most one chunk ahead of
   * the last one taken. The first chunk is read before this resolves, so a job failing before
   * its first byte rejects here (an error answer) rather than cutting a response short; a later
   * failure rejects `next()`. `return()` (the HTTP response closed early) stops the job.
   */
  open<K extends ReportJob>(job: K, args: ReportJobs[K]): Promise<AsyncIterableIterator<Chunk>>;
  /** The whole output of a job as one string (a report that answers JSON). */
  text<K extends ReportJob>(job: K, args: ReportJobs[K]): Promise<string>;
  /** Counters of the jobs run so far. */
  stats(): ReportStats;
  /** Where jobs run now: `worker` (SQLite file, PostgreSQL) or `in-process`. */
  readonly mode: 'worker' | 'in-process';
  /** Ends the worker; jobs still running fail. */
  close(): Promise<void>;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The app's report runner (exports and reports): its mode and counters for tests and diagnostics. */
    reports: ReportRunner;
  }
}

/** A worker with no job for this long is ended (its memory returned); the next report starts one again. */
const IDLE_MS = 30_000;

/** The worker script: the bundle's out/server/report-worker.mjs, or the TypeScript source through tsx. */
function workerScript(): { url: URL; entry?: string } | null {
  const here = import.meta.url;
  if (/\.ts$/.test(here)) return { url: new URL('./report-worker-boot.mjs', here), entry: new URL('./report-worker.ts', here).href };
  // out/server/main.mjs (npm run serve) and out/main/index.js (the desktop app) both find out/server/.
  for (const rel of ['./report-worker.mjs', '../server/report-worker.mjs']) {
    const url = new URL(rel, here);
    if (existsSync(fileURLToPath(url))) return { url };
  }
  return null;
}

/** A piece of a report's text. */
export type Chunk = string;

const done = (): IteratorResult<Chunk> => ({ value: undefined, done: true });

function failure(m: Extract<ToRunner, { t: 'error' }>): Error {
  // The worker's AppErrors (a 400 for a too-wide audit range) keep their code; anything else is a fault.
  if (m.code !== 'INTERNAL_ERROR' && Object.hasOwn(ERROR_CODES, m.code)) return new AppError(m.code as ErrorCode, m.message);
  // A lost database connection stays one (a 503 with retry_after_seconds: server/http/errors.ts).
  const cause = m.unavailable ? Object.assign(new Error(m.message), { code: '08006' }) : undefined;
  return new Error(`report job failed in the report worker: ${m.message}`, { cause });
}

/** Counters of the jobs this runner ran (tests, diagnostics). */
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

/** One job in the worker, read as an async iterator. */
class WorkerJob implements AsyncIterableIterator<Chunk> {
  private readonly queue: Chunk[] = [];
  /** The worker has stopped this job (its end, its error, its cancel confirmed, or the worker is gone). */
  private settled = false;
  /** The reader is done with it (return()): later chunks are dropped. */
  private closed = false;
  private failed: Error | null = null;
  private waiting: { resolve: (r: IteratorResult<Chunk>) => void; reject: (e: Error) => void } | null = null;
  /** A credit is out (the start message carries the first). */
  private asked = true;

  constructor(
    readonly id: number,
    readonly worker: Worker,
    private readonly stats: ReportStats,
    private readonly onSettled: (job: WorkerJob) => void,
  ) {}

  receive(m: ToRunner): void {
    if (m.t === 'chunk') {
      this.asked = false;
      if (!this.closed) this.queue.push(m.data);
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

  private ask(): void {
    if (this.asked || this.settled || this.closed) return;
    this.asked = true;
    this.post({ t: 'more', id: this.id });
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

/** An iterator whose first result was read already (so that a failure before the first byte shows at once). */
async function primed(it: AsyncIterator<Chunk>): Promise<AsyncIterableIterator<Chunk>> {
  let first: IteratorResult<Chunk> | null = await it.next();
  const self: AsyncIterableIterator<Chunk> = {
    next: () => {
      const r = first;
      first = null;
      return r ? Promise.resolve(r) : it.next();
    },
    return: async () => {
      first = null;
      return (await it.return?.()) ?? done();
    },
    [Symbol.asyncIterator]: () => self,
  };
  return self;
}

/** An in-process job, counted like a worker's. */
async function* counted(chunks: AsyncGenerator<string>, stats: ReportStats): AsyncGenerator<string> {
  stats.running++;
  let outcome: 'completed' | 'cancelled' | 'failed' = 'cancelled';
  try {
    for await (const chunk of chunks) {
      stats.chunks++;
      yield chunk;
    }
    outcome = 'completed';
  } catch (err) {
    outcome = 'failed';
    throw err;
  } finally {
    stats.running--;
    stats[outcome]++;
  }
}

/** The database a worker can open a connection of its own on; none for a handle only this process can reach. */
function sourceOf(db: Db): ReportSource | null {
  const file = sqliteFileOf(db);
  if (file) return { file };
  const url = postgresUrlOf(db);
  return url ? { url } : null;
}

export function createReportRunner(db: Db, logger: FastifyBaseLogger | false = false): ReportRunner {
  const source = sourceOf(db);
  const script = source ? workerScript() : null;
  let usable = script !== null;
  let worker: { w: Worker; ready: Promise<boolean> } | null = null;
  const jobs = new Map<number, WorkerJob>();
  let seq = 0;
  let idle: NodeJS.Timeout | null = null;
  const stats: ReportStats = { running: 0, completed: 0, cancelled: 0, failed: 0, chunks: 0 };

  const failJobsOf = (w: Worker, err: Error) => {
    for (const job of [...jobs.values()]) if (job.worker === w) job.fail(err);
  };

  const start = (): { w: Worker; ready: Promise<boolean> } => {
    // Small heap limits: the worker's garbage (rows, CSV text) is collected often, in its own
    // thread, instead of V8 letting the heap grow (the 24 MB bench export: +62 MB RSS without
    // the old-generation limit, +35 to +38 MB with 48 to 512 MB). A report that needs more
    // fails cleanly (500) and the server goes on, where in-process it would have taken the
    // whole process down.
    const w = new Worker(script!.url, {
      workerData: { ...source!, entry: script!.entry },
      stdout: false,
      stderr: false,
      resourceLimits: { maxYoungGenerationSizeMb: 2, maxOldGenerationSizeMb: 256 },
    });
    w.unref(); // an idle report worker never keeps the process alive
    let up = false;
    const ready = new Promise<boolean>((resolve) => {
      w.on('message', (m: ToRunner) => {
        if (m.t === 'ready') {
          up = true;
          resolve(true);
        } else {
          jobs.get(m.id)?.receive(m);
        }
      });
      w.on('error', (err) => {
        if (logger) logger.error({ err }, up ? 'report worker failed' : 'report worker could not start: reports run in-process');
        if (!up) usable = false;
        resolve(false);
        failJobsOf(w, err);
      });
      w.on('exit', (code) => {
        if (!up) usable = false;
        if (worker?.w === w) worker = null;
        resolve(false);
        failJobsOf(w, new Error(`report worker exited (${code})`));
      });
    });
    return { w, ready };
  };

  const finished = (job: WorkerJob) => {
    jobs.delete(job.id);
    if (jobs.size > 0 || !worker) return;
    const current = worker;
    idle = setTimeout(() => {
      idle = null;
      if (worker === current && jobs.size === 0) {
        worker = null;
        void current.w.terminate();
      }
    }, IDLE_MS);
    idle.unref();
  };

  const inProcess = <K extends ReportJob>(job: K, args: ReportJobs[K]) => counted((reportJobs[job] as (d: Db, a: ReportJobs[K]) => AsyncGenerator<string>)(db, args), stats);

  const runner: ReportRunner = {
    get mode() {
      return usable ? 'worker' : 'in-process';
    },
    stats: () => ({ ...stats }),
    async open(job, args) {
      if (!usable) return primed(inProcess(job, args));
      if (idle) clearTimeout(idle);
      idle = null;
      worker ??= start();
      const current = worker;
      if (!(await current.ready)) {
        if (!usable) return primed(inProcess(job, args)); // could not start at all
        throw new Error('report worker stopped');
      }
      const id = ++seq;
      const it = new WorkerJob(id, current.w, stats, finished);
      jobs.set(id, it);
      stats.running++;
      current.w.postMessage({ t: 'start', id, job, args } satisfies ToWorker);
      return primed(it);
    },
    async text(job, args) {
      let out = '';
      for await (const chunk of await runner.open(job, args)) out += chunk;
      return out;
    },
    async close() {
      if (idle) clearTimeout(idle);
      idle = null;
      const current = worker;
      worker = null;
      if (current) {
        failJobsOf(current.w, new Error('report worker closed'));
        await current.w.terminate();
      }
    },
  };
  return runner;
}
