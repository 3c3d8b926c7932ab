import { readFileSync, rmSync } from 'node:fs';
import type { Child } from '../test/support/processes';

/**
 * What the server's preloads (bench/loop-monitor.mjs) write on SIGUSR2:
 * the files are removed first, the signal sent, and each waited for until it parses (a file
 * being written does not yet), up to `timeoutMs`. The handlers run when the server's loop next
 * turns, so a loop held by a long statement answers late: an answer later than 200 ms is said
 * through `note`, and a window is never read twice or mistaken for a missing monitor.
 */
export async function signalWindows(server: Child, files: string[], note?: (msg: string) => void, timeoutMs = 30_000): Promise<unknown[]> {
  for (const f of files) rmSync(f, { force: true });
  const t0 = performance.now();
  process.kill(server.pid, 'SIGUSR2');
  const read: unknown[] = [];
  for (;;) {
    await new Promise((r) => setTimeout(r, 20));
    for (const [i, f] of files.entries()) {
      if (read[i] !== undefined) continue;
      try {
        read[i] = JSON.parse(readFileSync(f, 'utf8'));
      } catch {
        // not written yet, or being written
      }
    }
    const waited = performance.now() - t0;
    if (files.every((_, i) => read[i] !== undefined)) {
      if (waited > 200) note?.(`the server answered SIGUSR2 after ${Math.round(waited)} ms`);
      return read;
    }
    if (waited > timeoutMs) throw new Error(`the server did not answer SIGUSR2 within ${timeoutMs / 1000} s (${files.join(', ')}): is the monitor preloaded?`);
  }
}

/** The server's event-loop delay since the last read (bench/loop-monitor.mjs). */
export async function loopWindow<T extends { max_ms: number; p99_ms: number }>(server: Child, file: string, note?: (msg: string) => void): Promise<T> {
  return (await signalWindows(server, [file], note))[0] as T;
}
