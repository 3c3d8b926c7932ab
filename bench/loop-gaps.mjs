// A heavier variant of bench/loop-monitor.mjs for `tsx bench/export-replay.ts --monitor bench/loop-gaps.mjs`:
// besides the loop-delay histogram, a 1 ms interval timer records every gap over 12 ms with the
// main thread's time on a CPU and waiting for one during it (/proc/self/task/PID/schedstat,
// Linux), so that on a loaded machine a stall of the server's own making (on-CPU: its code, its
// GC) is told from one of the scheduler's (run-queue wait); and memory (process.memoryUsage,
// RSS per mapping from /proc/self/smaps). Written on SIGUSR2 to PAYDESK_LOOP_MONITOR_FILE, as the
// plain monitor. The timer and the readings allocate on the main thread: not for bench:volume.
import { openSync, readFileSync, readSync, writeFileSync } from 'node:fs';
import { Buffer } from 'node:buffer';
import process from 'node:process';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { setInterval } from 'node:timers';

/** RSS in MB per mapped file ([anon] for anonymous memory). */
function smaps() {
  const out = {};
  let cur = null;
  for (const line of readFileSync('/proc/self/smaps', 'utf8').split('\n')) {
    const m = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (m) {
      cur = (m[1] || '[anon]').replace(/.*\//, '');
      continue;
    }
    const r = /^Rss:\s+(\d+)/.exec(line);
    if (r && cur) out[cur] = (out[cur] ?? 0) + Number(r[1]) / 1024;
  }
  for (const k of Object.keys(out)) {
    out[k] = Math.round(out[k] * 10) / 10;
    if (out[k] < 0.5) delete out[k];
  }
  return out;
}

const file = process.env.PAYDESK_LOOP_MONITOR_FILE;
if (file) {
  const h = monitorEventLoopDelay({ resolution: 1 });
  h.enable();
  const fd = openSync(`/proc/self/task/${process.pid}/schedstat`, 'r');
  const buf = Buffer.alloc(128);
  /** [ns on a CPU, ns waiting on a run queue] of the main thread so far. */
  const sched = () => {
    const n = readSync(fd, buf, 0, 128, 0);
    const [cpu, wait] = buf.toString('latin1', 0, n).split(' ');
    return [Number(cpu), Number(wait)];
  };
  /** [at ms, gap ms, on-CPU ms, run-queue ms] */
  const gaps = [];
  let last = performance.now();
  let s0 = sched();
  let cpuMax = 0;
  setInterval(() => {
    const now = performance.now();
    const s = sched();
    if (now - last > 13) {
      const cpu = Math.round((s[0] - s0[0]) / 1e5) / 10;
      gaps.push([Math.round(now), Math.round(now - last - 1), cpu, Math.round((s[1] - s0[1]) / 1e5) / 10]);
      cpuMax = Math.max(cpuMax, cpu);
    }
    last = now;
    s0 = s;
  }, 1).unref();
  process.on('SIGUSR2', () => {
    const ms = (ns) => Math.round(ns / 1e4) / 100;
    const mb = (b) => Math.round(b / 1e5) / 10;
    const m = process.memoryUsage();
    writeFileSync(
      file,
      JSON.stringify({
        max_ms: ms(h.max),
        p99_ms: ms(h.percentile(99)),
        mean_ms: ms(h.mean),
        gap_cpu_max_ms: cpuMax,
        gaps: gaps.splice(0),
        now: Math.round(performance.now()),
        mem: { rss: mb(m.rss), heapTotal: mb(m.heapTotal), heapUsed: mb(m.heapUsed), external: mb(m.external), ab: mb(m.arrayBuffers) },
        smaps: smaps(),
      }),
    );
    h.reset();
    cpuMax = 0;
    // This handler's own work (smaps: 10-17 ms of CPU on a loaded machine) is not a gap of the next
    // window (the histogram's max_ms of that window may still hold it: read gaps and their CPU).
    last = performance.now();
    s0 = sched();
  });
}
