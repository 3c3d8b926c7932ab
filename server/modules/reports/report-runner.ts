import { existsSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import { Worker } from 'node:worker_threads';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/database';
import { readerSourceOf } from '../../db/reader';
import { reportJobs, type ReportJob, type ReportJobs } from './report-jobs';
import { SLOT_BYTES, SLOTS, type ToRunner, type ToWorker } from './report-protocol';
import type { Chunk } from '../../http/report-stream';
import { done, WorkerJob, type ReportStats } from './report-worker-job';

;

/**
 * Runs the back office's long reads (report-jobs.ts) off the request path, in one worker thread
 * with its own read-only connection: on SQLite on the same file (WAL: its reads never block the
 * server's writes), on PostgreSQL one connection from the same DATABASE_URL (in-process,
 * parsing a year of rows and building its CSV grew the server's heap by ~98 MB and stalled its
 * loop 29 ms at a million sessions). The worker is created at the first report and ended after
 * IDLE_MS without one, so an idle server carries no second thread (nor a second connection).
 * In-process: a SQLite database in memory, a handle derived from the server's (a test's SQL
 * recorder), and any place the worker cannot start (logged once).
 */
export interface ReportRunner {
  /**
   * The job's chunks, paced by the reader: the worker prepares at most one chunk ahead of the
   * last one taken, and only into a slot whose chunk was released (report-worker-job.ts): each
   * chunk must be released once written or copied. The first chunk is read before this
   * resolves, so a job failing before its first byte rejects here (an error answer) rather than
   * cutting a response short; a later failure rejects `next()`. `return()` (the HTTP response
   * closed early) stops the job. Over HTTP: reportStream (server/http/report-stream.ts).
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
  // out/server/main.cjs (npm run serve) and out/main/index.js (the desktop app) both find out/server/.
  for (const rel of ['./report-worker.mjs', '../server/report-worker.mjs']) {
    const url = new URL(rel, here);
    if (existsSync(fileURLToPath(url))) return { url };
  }
  return null;
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

const noop = () => undefined;

/** An in-process job, counted like a worker's: its text as it comes (nothing to release). */
async function* counted(chunks: AsyncGenerator<string>, stats: ReportStats): AsyncGenerator<Chunk> {
  stats.running++;
  let outcome: 'completed' | 'cancelled' | 'failed' = 'cancelled';
  try {
    for await (const data of chunks) {
      stats.chunks++;
      yield { data, release: noop };
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

/** The process's `--max-semi-space-size` in MB (SERVER_NODE_FLAGS), or null when it has none. */
function semiSpaceFlag(): number | null {
  const args = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
  let mb: number | null = null;
  for (const [i, arg] of args.entries()) {
    const m = /^--max[-_]semi[-_]space[-_]size(?:=(\d+))?$/.exec(arg);
    if (m) mb = Number(m[1] ?? args[i + 1]);
  }
  return mb !== null && Number.isInteger(mb) && mb > 0 ? mb : null;
}

/**
 * Creates the worker with the young generation its resourceLimits ask for. V8 flags are
 * process-wide and `--max-semi-space-size` wins over a worker's `maxYoungGenerationSizeMb`, so
 * under the server's flag (8 MB) the worker's young generation was 2 × 8 MB instead of 2 MB:
 * about 8 MB more RSS over a whole export at a million sessions (54.1 against 62.5 MB, the built
 * worker driven alone). The flag is read once, when an isolate is made: it is lifted while the
 * worker's isolate is made and put back when the worker is online; the main thread's heap,
 * made long before, keeps its size.
 */
function withOwnYoungGeneration(create: () => Worker): Worker {
  const mb = semiSpaceFlag();
  if (mb === null) return create();
  const restore = () => v8.setFlagsFromString(`--max-semi-space-size=${mb}`);
  v8.setFlagsFromString('--max-semi-space-size=0');
  let w: Worker;
  try {
    w = create();
  } catch (err) {
    restore();
    throw err;
  }
  w.once('online', restore);
  w.once('error', restore);
  w.once('exit', restore);
  return w;
}

/** `slotBytes`: the size of a job's byte slots (tests: a few bytes, so characters straddle chunks). */
export function createReportRunner(db: Db, logger: FastifyBaseLogger | false = false, opts: { slotBytes?: number } = {}): ReportRunner {
  const size = opts.slotBytes ?? SLOT_BYTES;
  const source = readerSourceOf(db);
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
    // the old-generation limit, +35 to +38 MB with 48 to 512 MB; the young generation's limit
    // holds only through withOwnYoungGeneration). A report that needs more fails cleanly (500)
    // and the server goes on, where in-process it would have taken the whole process down.
    const w = withOwnYoungGeneration(
      () =>
        new Worker(script!.url, {
          workerData: { ...source!, entry: script!.entry },
          stdout: false,
          stderr: false,
          resourceLimits: { maxYoungGenerationSizeMb: 2, maxOldGenerationSizeMb: 256 },
        }),
    );
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
      // The job's slots: allocated once per job, shared (not copied) with the worker.
      const slots = new SharedArrayBuffer(SLOTS * size);
      const it = new WorkerJob(id, current.w, slots, size, stats, finished);
      jobs.set(id, it);
      stats.running++;
      current.w.postMessage({ t: 'start', id, job, args, slots, size } satisfies ToWorker);
      return primed(it);
    },
    async text(job, args) {
      const utf8 = new StringDecoder('utf8');
      let out = '';
      for await (const chunk of await runner.open(job, args)) {
        out += typeof chunk.data === 'string' ? chunk.data : utf8.write(chunk.data as Buffer);
        chunk.release();
      }
      return out + utf8.end();
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
