import { parentPort, workerData } from 'node:worker_threads';
import { isDatabaseUnavailable } from '../../db/connection-errors';
import { openReader } from '../../db/reader';
import { AppError } from '../../lib/errors';
import { isReportJob, reportJobs, type ReportJobs } from './report-jobs';
import type { ReportSource, ToRunner, ToWorker } from './report-protocol';

/**
 * The report worker (a worker thread, report-runner.ts): its own read-only connection (on the
 * SQLite file, or one PostgreSQL connection from the server's DATABASE_URL), so an export's
 * queries, row parsing and CSV building never hold the server's event loop.
 * Runs any number of jobs interleaved. Each job sends a chunk only against a credit from the
 * runner, a free byte slot (one at start, one per chunk the HTTP response has taken whose slot's
 * bytes are written out): it prepares at most one chunk ahead of a slow client, and a cancelled
 * job (the client went away) stops between batches.
 */
const port = parentPort;
if (!port) throw new Error('report-worker.ts runs as a worker thread (report-runner.ts)');
const source = workerData as ReportSource;
const reader = openReader(source);

interface Running {
  /** Slots the runner has handed over (credits): each may carry one chunk. */
  free: number[];
  cancelled: boolean;
  wake: (() => void) | null;
}
const running = new Map<number, Running>();
const post = (m: ToRunner) => port.postMessage(m);
const encoder = new TextEncoder();

async function run(id: number, job: keyof ReportJobs, args: unknown, shared: SharedArrayBuffer, size: number): Promise<void> {
  const state: Running = { free: [0], cancelled: false, wake: null };
  running.set(id, state);
  const slots = Array.from({ length: shared.byteLength / size }, (_, i) => new Uint8Array(shared, i * size, size));
  try {
    const chunks = (reportJobs[job] as (db: typeof reader.db, a: unknown) => AsyncGenerator<string>)(reader.db, args);
    // for await: leaving the loop early (a cancel) closes the generator, which stops its reads.
    text: for await (const text of chunks) {
      // UTF-8 straight into a slot shared with the runner: the main thread writes the slot's bytes
      // to the socket and allocates nothing per chunk (a string posted was copied into its heap,
      // ~120 MB at a million sessions, and its major GCs stalled the loop; transferred bytes were
      // external memory waiting for a main-thread GC). Text longer than a slot goes in several;
      // encodeInto never splits a character, so the bytes are those of the whole text.
      let rest = text;
      for (;;) {
        while (state.free.length === 0 && !state.cancelled) await new Promise<void>((resolve) => (state.wake = resolve));
        if (state.cancelled) break text;
        const slot = state.free.shift()!;
        const { read, written } = encoder.encodeInto(rest, slots[slot]!);
        if (read === 0 && rest.length > 0) throw new Error(`report slot of ${size} bytes is too small`);
        post({ t: 'chunk', id, slot, len: written });
        if (read >= rest.length) break;
        rest = rest.slice(read);
      }
    }
    post({ t: 'end', id, cancelled: state.cancelled });
  } catch (err) {
    if (err instanceof AppError) post({ t: 'error', id, code: err.code, message: err.message, status: err.status });
    else post({ t: 'error', id, code: 'INTERNAL_ERROR', message: err instanceof Error ? err.message : String(err), unavailable: isDatabaseUnavailable(err) });
  } finally {
    running.delete(id);
  }
}

port.on('message', (m: ToWorker) => {
  if (m.t === 'start') {
    if (isReportJob(m.job)) void run(m.id, m.job, m.args, m.slots, m.size);
    else post({ t: 'error', id: m.id, code: 'INTERNAL_ERROR', message: `no report job ${String(m.job)}` });
    return;
  }
  const state = running.get(m.id);
  if (!state) return; // finished already
  if (m.t === 'more') state.free.push(m.slot);
  else state.cancelled = true;
  const wake = state.wake;
  state.wake = null;
  wake?.();
});
post({ t: 'ready' });
