import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type SQLite from 'better-sqlite3';
import { WAL_AUTOCHECKPOINT_PAGES } from './database';

/**
 * The server's WAL checkpoints, off the event loop.
 *
 * SQLite checkpoints inside whichever commit pushes the WAL past `wal_autocheckpoint` pages
 * (server/db/database.ts: 300), on the connection that commits: on the server's one connection,
 * that is the event loop. A checkpoint syncs the WAL, copies its pages
 * into the database file and syncs that: in `npm run bench`'s webhook fan-out window one commit in
 * six checkpointed and those took 3-20 ms each against 0.4 for the others, 110-230 ms of the main
 * thread's ~900; and while another process wrote heavily to the same disk one such commit took
 * 277 ms (docs/operations.md "A disk shared with other writers").
 *
 * Here a worker thread with a connection of its own runs `PRAGMA wal_checkpoint(PASSIVE)` every
 * `intervalMs`. PASSIVE never waits for readers or the writer, and a checkpoint with nothing new to
 * copy does no I/O. The server's connection keeps a checkpoint of its own only as a backstop, at
 * BACKSTOP_WAL_PAGES: SQLite starts the WAL over once a checkpoint has copied all of it (at the next
 * write), and under writes that never pause the worker may never catch up exactly; then the
 * server's commit at the backstop copies the little left and the WAL starts over.
 *
 * Checkpoints play no part in durability: the server's connection syncs the WAL at every commit
 * (`synchronous = FULL`, database.ts), before anything is answered, so a commit is on disk whether
 * or not it was checkpointed yet; a checkpoint copies synced frames into the file and syncs that
 * before the WAL starts over, and one cut short (the process killed, the power cut) is redone by
 * the next. Only the server starts one (server/runtime.ts): the CLI's short runs and the tests'
 * databases checkpoint in their commits.
 */

/** WAL pages past which the server's own commit checkpoints while the worker runs (16 MB of 4 KB pages). */
export const BACKSTOP_WAL_PAGES = 4_000;
/** How often the worker checkpoints. */
const CHECKPOINT_INTERVAL_MS = 100;

interface CheckpointResult {
  /** 1 when the checkpoint could not run to completion (another connection was checkpointing, or readers hold frames). */
  busy: number;
  /** Frames in the WAL. */
  log: number;
  /** Frames of it copied into the database file. */
  checkpointed: number;
}

/** The worker's checkpoints so far (for `/metrics`): how many ran, their summed and last wall time. */
export interface CheckpointStats {
  count: number;
  totalMs: number;
  lastMs: number;
}

export interface Checkpointer {
  /** Checkpoints now, in the worker, and resolves with what SQLite answered (tests). */
  checkpointNow(): Promise<CheckpointResult>;
  /** The worker's checkpoint count and times, asked of it (a scrape of `/metrics`). */
  stats(): Promise<CheckpointStats>;
  /** Stops the worker and closes its connection; the server's connection checkpoints at WAL_AUTOCHECKPOINT_PAGES again. */
  stop(): Promise<void>;
}

// Plain JavaScript, run by the worker (eval): no bundling or loader is involved, in the bundle, from
// source through tsx, or in the desktop app.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
const db = new Database(workerData.file, { fileMustExist: true, timeout: workerData.busyTimeoutMs });
// Set up at the first checkpoint, not here: preparing any statement reads the schema, and a
// database locked at start is then a failed checkpoint (retried next time), not a dead worker.
let checkpoint = null;
const prepare = () => {
  // As the server's connection (database.ts), said rather than taken from better-sqlite3's default:
  // a checkpoint syncs the WAL before copying it and the database file before the WAL starts over
  // (in WAL mode FULL and NORMAL checkpoint alike; they differ at commits, which this one never makes).
  db.pragma('synchronous = FULL');
  db.pragma('cache_size = -512');
  return db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
};
let timer;
// Failures in a row: the first is reported, then one in every workerData.reportEvery (once a
// minute at the default interval), and the first success after them.
let failures = 0;
const stats = { count: 0, totalMs: 0, lastMs: 0 };
const run = () => {
  try {
    checkpoint ??= prepare();
    const started = performance.now();
    const result = checkpoint.get();
    stats.lastMs = performance.now() - started;
    stats.totalMs += stats.lastMs;
    stats.count++;
    if (failures > 0) parentPort.postMessage({ recovered: failures });
    failures = 0;
    return result;
  } catch (err) {
    failures++;
    if (failures === 1 || failures % workerData.reportEvery === 0) parentPort.postMessage({ error: String((err && (err.message || err.code)) || err), failures });
    return null;
  }
};
const tick = () => {
  run();
  timer = setTimeout(tick, workerData.intervalMs);
};
timer = setTimeout(tick, workerData.intervalMs);
parentPort.on('message', (m) => {
  if (m.op === 'now') {
    parentPort.postMessage({ id: m.id, result: run() });
  } else if (m.op === 'stats') {
    parentPort.postMessage({ id: m.id, stats });
  } else if (m.op === 'stop') {
    clearTimeout(timer);
    db.close();
    parentPort.postMessage({ id: m.id });
    parentPort.close();
  }
});
`;

/** While checkpoints keep failing, one report in this many after the first (once a minute at 100 ms). */
const CHECKPOINT_FAILURE_REPORT_EVERY = 600;

export interface CheckpointerOptions {
  intervalMs?: number;
  /** How long the worker's connection waits for a lock (better-sqlite3's default, 5 s; tests lower it). */
  busyTimeoutMs?: number;
  /** CHECKPOINT_FAILURE_REPORT_EVERY (tests lower it). */
  reportEvery?: number;
  /**
   * A checkpoint failed: `failures` in a row so far. Called for the first, then for one in every
   * CHECKPOINT_FAILURE_REPORT_EVERY, so a lasting failure is not a log line every interval.
   */
  onError?: (message: string, failures: number) => void;
  /** The worker itself died (its error): the server's connection checkpoints in its commits again. */
  onStopped?: (message: string) => void;
  /** A checkpoint succeeded after `failures` that failed in a row. */
  onRecovered?: (failures: number) => void;
}

export function startCheckpointer(sqlite: SQLite.Database, file: string, opts: CheckpointerOptions = {}): Checkpointer {
  const module = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { module, file, intervalMs: opts.intervalMs ?? CHECKPOINT_INTERVAL_MS, busyTimeoutMs: opts.busyTimeoutMs ?? 5_000, reportEvery: opts.reportEvery ?? CHECKPOINT_FAILURE_REPORT_EVERY },
    // A bound on its heap (it allocates next to nothing). The ~10 MB of RSS it adds is its isolate,
    // which these limits do not shrink (measured, docs/performance.md "Optimisations in the code").
    resourceLimits: { maxYoungGenerationSizeMb: 1, maxOldGenerationSizeMb: 16 },
  });
  // The worker never keeps the process alive by itself: the server's stop() ends it.
  worker.unref();
  sqlite.pragma(`wal_autocheckpoint = ${BACKSTOP_WAL_PAGES}`);
  let next = 0;
  const waiting = new Map<number, { resolve: (m: { result?: CheckpointResult; stats?: CheckpointStats }) => void; reject: (err: Error) => void }>();
  let failure: Error | null = null;
  const fail = (err: Error) => {
    failure ??= err;
    // Without the worker the server's connection checkpoints in its commits again, as before.
    if (sqlite.open) sqlite.pragma(`wal_autocheckpoint = ${WAL_AUTOCHECKPOINT_PAGES}`);
    for (const w of waiting.values()) w.reject(err);
    waiting.clear();
  };
  worker.on('message', (m: { id?: number; result?: CheckpointResult; stats?: CheckpointStats; error?: string; failures?: number; recovered?: number }) => {
    if (m.error !== undefined) opts.onError?.(m.error, m.failures ?? 1);
    if (m.recovered !== undefined) opts.onRecovered?.(m.recovered);
    if (m.id === undefined) return;
    waiting.get(m.id)?.resolve(m);
    waiting.delete(m.id);
  });
  worker.on('error', (err: Error & { code?: string }) => {
    // An error thrown in the worker arrives cloned: a SqliteError keeps its code, not always its message.
    opts.onStopped?.(err.message || err.code || String(err));
    fail(err);
  });
  worker.on('exit', () => fail(new Error('the checkpoint worker has stopped')));
  const ask = (op: 'now' | 'stats' | 'stop') =>
    new Promise<{ result?: CheckpointResult; stats?: CheckpointStats }>((resolve, reject) => {
      if (failure) return reject(failure);
      const id = next++;
      waiting.set(id, { resolve, reject });
      worker.postMessage({ op, id });
    });
  let stopped: Promise<void> | undefined;
  return {
    async checkpointNow() {
      const { result } = await ask('now');
      if (!result) throw new Error('the checkpoint failed (see the server log)');
      return result;
    },
    async stats() {
      const { stats } = await ask('stats');
      return stats ?? { count: 0, totalMs: 0, lastMs: 0 };
    },
    stop: () =>
      (stopped ??= (async () => {
        await ask('stop').catch(() => undefined);
        await worker.terminate();
        if (sqlite.open) sqlite.pragma(`wal_autocheckpoint = ${WAL_AUTOCHECKPOINT_PAGES}`);
      })()),
  };
}
