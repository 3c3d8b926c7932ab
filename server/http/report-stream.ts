import { Readable, type Writable } from 'node:stream';

/**
 * A piece of a report: its text (in-process) or its UTF-8 bytes (a view of a byte slot the report
 * worker encoded it into). `release()` once the piece is written out or copied: the worker
 * reuses the slot, so a job whose pieces are never released stops after SLOTS of them
 * (modules/reports/report-worker-job.ts).
 */
export interface Chunk {
  readonly data: string | Uint8Array;
  release(): void;
}

/**
 * A report's chunks (ReportRunner.open, modules/reports/report-runner.ts) as the body of an HTTP answer (`reply.send`). Piped (what
 * Fastify does with a stream body), each chunk goes to the response as it is, a view of the
 * worker's byte slot, and is released by the write's callback, when the socket has taken its
 * bytes: the main thread neither copies nor re-encodes the text, and the worker fills a slot
 * again only as fast as the client reads. Read any other way, each chunk is copied and released
 * at once.
 */
class ReportStream extends Readable {
  private started = false;

  constructor(private readonly chunks: AsyncIterator<Chunk>) {
    super();
  }

  override pipe<T extends NodeJS.WritableStream>(dest: T, opts?: { end?: boolean }): T {
    if (this.started) return super.pipe(dest, opts);
    this.started = true;
    void this.pump(dest, opts?.end !== false);
    return dest;
  }

  private async pump(dest: NodeJS.WritableStream, end: boolean): Promise<void> {
    try {
      for (;;) {
        const r = await this.chunks.next();
        if (r.done) break;
        const chunk = r.value;
        if (this.destroyed) return chunk.release();
        const more = dest.write(chunk.data, () => chunk.release());
        // The slots already pace the worker; this keeps at most one chunk queued in a slow writer.
        if (!more && !this.destroyed) await drained(dest, this);
      }
      if (this.destroyed) return;
      if (end) dest.end();
      // The stream's own end, for those waiting on it (Fastify's end-of-stream check).
      this.push(null);
      this.resume();
    } catch (err) {
      this.destroy(err as Error);
    }
  }

  override _read(): void {
    if (!this.started) this.started = true;
    this.chunks.next().then(
      (r) => {
        if (r.done) return void this.push(null);
        const { data } = r.value;
        const copy = typeof data === 'string' ? data : Buffer.from(data);
        r.value.release();
        this.push(copy);
      },
      (err: Error) => this.destroy(err),
    );
  }

  override _destroy(err: Error | null, cb: (err?: Error | null) => void): void {
    // The reader went away (a client that hung up) or the job failed: stop the job.
    Promise.resolve(this.chunks.return?.()).then(
      () => cb(err),
      () => cb(err),
    );
  }
}

/** Resolves at the writer's next 'drain', or when either side closes. */
function drained(dest: NodeJS.WritableStream, src: Readable): Promise<void> {
  if ((dest as Writable).destroyed) return Promise.resolve(void src.destroy());
  return new Promise((resolve) => {
    const go = () => {
      dest.removeListener('drain', go);
      dest.removeListener('close', go);
      dest.removeListener('error', go);
      src.removeListener('close', go);
      resolve();
    };
    dest.once('drain', go);
    dest.once('close', go);
    dest.once('error', go);
    src.once('close', go);
  });
}

/** The body of a report's HTTP answer. */
export const reportStream = (chunks: AsyncIterator<Chunk>): Readable => new ReportStream(chunks);
