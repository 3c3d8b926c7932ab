// Preloaded into the server by bench/stall-trace.ts (node --import), beside bench/loop-monitor.mjs:
// records, with performance.now() timestamps, what the event loop was doing when it stalled.
// - gaps: every interval longer than PAYDESK_STALL_TRACE_GAP_MS (default 10) between two runs of
//   a 1 ms timer chain (the loop was busy, or idle-waiting, that long);
// - statements: every better-sqlite3 run/get/all that took PAYDESK_STALL_TRACE_STMT_MS (default 1)
//   or more, with its SQL, and for every write statement outside a transaction and every COMMIT
//   whether it checkpointed the WAL (the -shm file's nBackfill moved during the call: SQLite's
//   auto-checkpoint runs inside the commit that pushes the WAL past wal_autocheckpoint pages);
// - spans: whatever server code reports through globalThis.__paydeskStallBegin / __paydeskStallEnd.
//   Nothing in the committed server does: `git apply bench/stall-trace-spans.patch && npm run build`
//   makes a traced build (the sweeper's tick, the sweep, each job, each fold batch, index batch and
//   FTS5 merge step); `git checkout server` and a build undo it.
// On SIGUSR2 it writes {gaps, statements, spans, checkpoints} since the last signal to
// PAYDESK_STALL_TRACE_FILE and starts over. No server code depends on it.
import { closeSync, openSync, readSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Buffer } from 'node:buffer';
import { PerformanceObserver, performance } from 'node:perf_hooks';
import { setTimeout } from 'node:timers';
import process from 'node:process';

const file = process.env.PAYDESK_STALL_TRACE_FILE;
if (file) {
  const gapMs = Number(process.env.PAYDESK_STALL_TRACE_GAP_MS ?? 10);
  const stmtMs = Number(process.env.PAYDESK_STALL_TRACE_STMT_MS ?? 1);
  const shmFile = process.env.DATA_DIR ? join(process.env.DATA_DIR, 'paydesk.sqlite-shm') : null;
  let gaps = [];
  let statements = [];
  let spans = [];
  let checkpoints = [];
  let writes = { commits: 0, autocommit: 0 };

  // WalIndexHdr.mxFrame at byte 16, WalCkptInfo.nBackfill at byte 96 (sqlite/src/wal.c), native order.
  const shmBuf = Buffer.alloc(100);
  let shmFd = null;
  const walState = () => {
    if (!shmFile) return null;
    try {
      if (shmFd === null) shmFd = openSync(shmFile, 'r');
      readSync(shmFd, shmBuf, 0, 100, 0);
      return { mxFrame: shmBuf.readUInt32LE(16), nBackfill: shmBuf.readUInt32LE(96) };
    } catch {
      return null;
    }
  };

  const require = createRequire(join(process.cwd(), 'package.json'));
  const Database = require('better-sqlite3');
  const probe = new Database(':memory:');
  const proto = Object.getPrototypeOf(probe.prepare('select 1'));
  probe.close();
  for (const method of ['run', 'get', 'all']) {
    const original = proto[method];
    proto[method] = function traced(...args) {
      // COMMIT counts as read-only to SQLite (sqlite3_stmt_readonly): named here.
      const commit = /^\s*commit/i.test(this.source);
      const watch = commit || (!this.readonly && !this.database.inTransaction);
      const before = watch ? walState() : null;
      const c0 = watch ? process.cpuUsage() : null;
      const t0 = performance.now();
      try {
        return original.apply(this, args);
      } finally {
        const t1 = performance.now();
        let ckpt = null;
        let cpu = null;
        if (watch) {
          const c = process.cpuUsage(c0);
          cpu = (c.user + c.system) / 1000;
          if (commit) writes.commits++;
          else writes.autocommit++;
          const after = walState();
          if (before && after && after.nBackfill !== before.nBackfill && after.nBackfill > 0) {
            ckpt = { frames: after.nBackfill, mxFrame: after.mxFrame };
            checkpoints.push({ t0, t1, ms: t1 - t0, cpu_ms: cpu, sql: this.source.slice(0, 100), ...ckpt });
          }
        }
        if (t1 - t0 >= stmtMs) statements.push({ t0, t1, ms: t1 - t0, cpu_ms: cpu, sql: this.source.slice(0, 160), ckpt });
      }
    };
  }

  // A traced build: `const t = __paydeskStallBegin?.()` … `__paydeskStallEnd?.(name, t, extra)`; cpu_ms is the process's
  // user + system CPU over the span (the main thread's, as nothing else runs during synchronous work).
  globalThis.__paydeskStallBegin = () => ({ t0: performance.now(), c0: process.cpuUsage() });
  globalThis.__paydeskStallEnd = (name, begun, extra) => {
    if (!begun) return;
    const t1 = performance.now();
    const c = process.cpuUsage(begun.c0);
    spans.push({ name, t0: begun.t0, t1, ms: t1 - begun.t0, cpu_ms: (c.user + c.system) / 1000, ...(extra ?? {}) });
  };

  // Garbage collections of 2 ms or more, as spans named gc:KIND.
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) if (e.duration >= 2) spans.push({ name: `gc:${e.detail?.kind ?? e.kind}`, t0: e.startTime, t1: e.startTime + e.duration, ms: e.duration, cpu_ms: null });
  }).observe({ entryTypes: ['gc'] });

  // cpu_ms: the process's CPU over the gap. On a machine shared with other work the wall time of
  // a gap includes time the thread was runnable but not running, or waiting on the disk; the CPU
  // is what the server's own code spent, and what a quiet machine would show as the stall.
  let last = performance.now();
  let lastCpu = process.cpuUsage();
  const tick = () => {
    const now = performance.now();
    const cpu = process.cpuUsage();
    if (now - last > gapMs) gaps.push({ t0: last, t1: now, ms: now - last, cpu_ms: (cpu.user - lastCpu.user + cpu.system - lastCpu.system) / 1000 });
    last = now;
    lastCpu = cpu;
    setTimeout(tick, 1).unref();
  };
  setTimeout(tick, 1).unref();

  process.on('SIGUSR2', () => {
    writeFileSync(file, JSON.stringify({ gaps, statements, spans, checkpoints, writes }));
    gaps = [];
    statements = [];
    spans = [];
    checkpoints = [];
    writes = { commits: 0, autocommit: 0 };
  });
  process.on('exit', () => {
    if (shmFd !== null) closeSync(shmFd);
  });
}
