// Preloaded into the server by `npm run bench:volume` (node --import): measures the server's own
// event-loop delay with perf_hooks.monitorEventLoopDelay, without code in the server for it.
// On SIGUSR2 it writes {max_ms, p99_ms, mean_ms} since the last signal to
// PAYDESK_LOOP_MONITOR_FILE and starts over, so the bench reads one window at a time.
import { writeFileSync } from 'node:fs';
import process from 'node:process';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const file = process.env.PAYDESK_LOOP_MONITOR_FILE;
if (file) {
  // The histogram records the time between its timer's firings, so every value includes the
  // resolution: at 10 ms an idle loop read 10.1 ms and a 30 ms block 38 ms. At 1 ms a value is
  // the stall itself to within a millisecond.
  const h = monitorEventLoopDelay({ resolution: 1 });
  h.enable();
  process.on('SIGUSR2', () => {
    const ms = (ns) => Math.round(ns / 1e4) / 100;
    writeFileSync(file, JSON.stringify({ max_ms: ms(h.max), p99_ms: ms(h.percentile(99)), mean_ms: ms(h.mean) }));
    h.reset();
  });
}
