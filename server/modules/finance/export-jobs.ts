import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, mkdtempSync, rmSync, type WriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import type { Clock } from '../../lib/clock';
import { AppError, notFound } from '../../lib/errors';
import type { PaymentsExportJob } from '../../../shared/schemas/backoffice';
import type { AppDeps } from '../../deps';
import type { Chunk } from '../../http/report-stream';
import type { PaymentsExport } from './finance-export.service';

/** A finished export (its state and its file) is kept this long, then forgotten. */
const KEEP_MS = 15 * 60_000;
/** Exports a staff member may have at once (running or kept); the oldest finished one makes room. */
const PER_OWNER = 5;

interface Job {
  view: PaymentsExportJob;
  owner: string;
  merchantId: string;
  file: string;
  /** Stops the job: set while it runs. */
  stop: (() => void) | null;
  endedAt: number | null;
}

/**
 * Payments exports that run on the server while the staff member watches: the same CSV as
 * `GET /reports/payments.csv` (the report worker's `payments` job, server/modules/reports/), written to a temporary file
 * with the count of rows so far, and cancellable: a cancel stops the worker's job (its state reads
 * cancelled) and the partial file is deleted, never offered. Only the staff member who started
 * an export sees it. In memory: a restarted server has none.
 */
export interface ExportJobs {
  start(owner: string, range: PaymentsExport): Promise<PaymentsExportJob>;
  get(owner: string, id: string): PaymentsExportJob;
  cancel(owner: string, id: string): Promise<PaymentsExportJob>;
  /** The finished file; 409 while running, cancelled or failed. */
  file(owner: string, id: string): { stream: Readable; name: string };
  close(): void;
}

export function createExportJobs(reports: AppDeps['reports'], clock: Clock, logError: (err: unknown) => void = () => undefined): ExportJobs {
  let dir: string | null = null;
  const jobs = new Map<string, Job>();
  const now = () => clock.now().getTime();

  const forget = (job: Job) => {
    jobs.delete(job.view.id);
    rmSync(job.file, { force: true });
  };
  const sweep = () => {
    for (const job of [...jobs.values()]) if (job.endedAt !== null && now() - job.endedAt > KEEP_MS) forget(job);
  };
  // Finished exports nobody asks about again are forgotten (and their files deleted) all the same.
  const sweeper = setInterval(sweep, 60_000);
  sweeper.unref();
  const find = (owner: string, id: string): Job => {
    sweep();
    const job = jobs.get(id);
    if (!job || job.owner !== owner) throw notFound(`export ${id}`);
    return job;
  };
  const end = (job: Job, state: 'completed' | 'cancelled' | 'failed', error: string | null = null) => {
    if (job.view.state !== 'running') return;
    job.stop = null;
    job.endedAt = now();
    job.view = { ...job.view, state, finished_at: clock.now().toISOString(), error };
    if (state !== 'completed') rmSync(job.file, { force: true });
  };

  async function run(job: Job, chunks: AsyncIterableIterator<Chunk>, out: WriteStream): Promise<void> {
    let stopped = false;
    job.stop = () => {
      stopped = true;
      void chunks.return?.(); // the worker stops between batches; a waiting next() ends at once
    };
    let newlines = 0;
    try {
      for (;;) {
        const r = await chunks.next();
        if (r.done || stopped) {
          r.value?.release();
          break;
        }
        const { data } = r.value;
        const bytes = typeof data === 'string' ? Buffer.from(data) : data;
        for (let i = bytes.indexOf(10); i !== -1; i = bytes.indexOf(10, i + 1)) newlines++;
        // Written before the slot is released: the worker reuses it for the next chunk.
        await new Promise<void>((resolve, reject) => out.write(bytes, (err) => (err ? reject(err) : resolve())));
        r.value.release();
        // A cancel that landed while the chunk was being written keeps the count it answered with.
        if (stopped) break;
        job.view = { ...job.view, rows_written: Math.max(0, newlines - 1) };
      }
      await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
      end(job, stopped ? 'cancelled' : 'completed');
    } catch (err) {
      out.destroy();
      end(job, stopped ? 'cancelled' : 'failed', stopped ? null : 'The export could not be completed. Try again; if it fails again, tell your administrator.');
      if (!stopped) logError(err);
    }
  }

  return {
    async start(owner, range) {
      sweep();
      const mine = [...jobs.values()].filter((j) => j.owner === owner);
      if (mine.filter((j) => j.view.state === 'running').length >= PER_OWNER) throw new AppError('STATE_CONFLICT', `at most ${PER_OWNER} exports may run at once: cancel one or wait for it`);
      for (const old of mine.filter((j) => j.endedAt !== null).sort((a, b) => a.endedAt! - b.endedAt!).slice(0, Math.max(0, mine.length - PER_OWNER + 1))) forget(old);
      // A bad range or a failing first read answers here, before any job exists (as the CSV route does).
      const chunks = await reports.open('payments', range);
      dir ??= mkdtempSync(join(tmpdir(), 'paydesk-exports-'));
      const id = `exp_${randomBytes(12).toString('hex')}`;
      const file = join(dir, `${id}.csv`);
      const day = (s: string) => s.slice(0, 10);
      const job: Job = {
        view: {
          id,
          state: 'running',
          rows_written: 0,
          from: range.from,
          to: range.to,
          started_at: clock.now().toISOString(),
          finished_at: null,
          file_name: `payments-${day(range.from)}-to-${day(range.to)}.csv`,
          error: null,
        },
        owner,
        merchantId: range.merchantId,
        file,
        stop: null,
        endedAt: null,
      };
      jobs.set(id, job);
      void run(job, chunks, createWriteStream(file, { mode: 0o600 }));
      return job.view;
    },
    get: (owner, id) => find(owner, id).view,
    async cancel(owner, id) {
      const job = find(owner, id);
      if (job.view.state === 'cancelled') return job.view;
      if (job.view.state !== 'running') throw new AppError('STATE_CONFLICT', `export ${id} is ${job.view.state}: only a running export can be cancelled`);
      job.stop?.();
      end(job, 'cancelled');
      return job.view;
    },
    file(owner, id) {
      const job = find(owner, id);
      if (job.view.state !== 'completed') throw new AppError('STATE_CONFLICT', `export ${id} is ${job.view.state}: its file is offered only once it has completed`);
      return { stream: createReadStream(job.file), name: job.view.file_name };
    },
    close() {
      clearInterval(sweeper);
      for (const job of jobs.values()) job.stop?.();
      jobs.clear();
      if (dir) rmSync(dir, { recursive: true, force: true });
      dir = null;
    },
  };
}
