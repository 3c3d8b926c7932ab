// Preloaded into a server (node --import) to time every SQLite statement it runs, without code in
// the server for it: `BENCH_SERVER_NODE_ARGS="--import ./bench/diagnostics/sql-timer.mjs"
// PAYDESK_SQL_TIMER_FILE=/tmp/sql.txt npm run bench -- --only session_create`.
//
// - Wraps better-sqlite3's statements' run/get/all and the connection's `exec` in this process:
//   the server's bundle requires the same module, so its statements are the ones timed. `iterate`
//   (the streamed exports) is not timed.
// - Keeps, per 100 ms, each statement's count and time (the text with its whitespace and runs of
//   `?, ?` folded), only for the last PAYDESK_SQL_TIMER_LAST_MS (default 6,000): memory stays bounded
//   however long the server runs.
// - When the process is asked to stop (SIGTERM, as the benches stop their servers) or exits, it
//   writes to PAYDESK_SQL_TIMER_FILE the statements of the last PAYDESK_SQL_TIMER_LAST_MS before
//   that moment, the costliest first: total ms, count, µs each, text. With `--only SCENARIO` that
//   window is the scenario's (run.ts stops the server right after it).
// The time is the call into SQLite (the VM, its page reads and writes), not building the query
// or the JavaScript rows: a COMMIT's line is the group commit's write of the WAL.
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import { URL } from 'node:url';
import process from 'node:process';

const file = process.env.PAYDESK_SQL_TIMER_FILE;
if (file) {
  const windowMs = Number(process.env.PAYDESK_SQL_TIMER_LAST_MS ?? 6_000);
  const BUCKET_MS = 100;
  /** bucket index → statement text → [count, ms] */
  const buckets = new Map();
  const textOf = (sql) => sql.replace(/\s+/g, ' ').replace(/(\?, )+\?/g, '?…').slice(0, 200);
  const record = (text, t0) => {
    const t1 = performance.now();
    const b = Math.floor(t1 / BUCKET_MS);
    let m = buckets.get(b);
    if (!m) {
      m = new Map();
      buckets.set(b, m);
      for (const k of buckets.keys()) if (k < b - windowMs / BUCKET_MS - 1) buckets.delete(k);
    }
    const s = m.get(text);
    if (s) {
      s[0]++;
      s[1] += t1 - t0;
    } else m.set(text, [1, t1 - t0]);
  };
  // The Statement prototype's run/get/all, patched once; a statement's
  // folded text is kept per SQL source (the server prepares each text once: statement-cache.ts).
  const Database = createRequire(new URL('../../package.json', import.meta.url))('better-sqlite3');
  const probe = new Database(':memory:');
  const proto = Object.getPrototypeOf(probe.prepare('select 1'));
  probe.close();
  const texts = new Map();
  for (const method of ['run', 'get', 'all']) {
    const call = proto[method];
    proto[method] = function timed(...args) {
      const t0 = performance.now();
      try {
        return call.apply(this, args);
      } finally {
        let text = texts.get(this.source);
        if (text === undefined) texts.set(this.source, (text = textOf(this.source)));
        record(text, t0);
      }
    };
  }
  const exec = Database.prototype.exec;
  Database.prototype.exec = function (sql) {
    const t0 = performance.now();
    try {
      return exec.call(this, sql);
    } finally {
      record(textOf(sql), t0);
    }
  };

  let stoppedAt = null;
  process.prependListener('SIGTERM', () => (stoppedAt ??= performance.now()));
  process.on('exit', () => {
    const end = stoppedAt ?? performance.now();
    const from = Math.floor((end - windowMs) / BUCKET_MS);
    const to = Math.floor(end / BUCKET_MS);
    const totals = new Map();
    let all = 0;
    for (const [b, m] of buckets) {
      if (b < from || b > to) continue;
      for (const [text, [n, ms]] of m) {
        const t = totals.get(text) ?? [0, 0];
        t[0] += n;
        t[1] += ms;
        totals.set(text, t);
        all += ms;
      }
    }
    const lines = [`SQLite time in the last ${windowMs} ms before the server stopped: ${all.toFixed(1)} ms`];
    for (const [text, [n, ms]] of [...totals].sort((a, b) => b[1][1] - a[1][1]).slice(0, 40)) {
      lines.push(`${ms.toFixed(1).padStart(9)} ms ${String(n).padStart(7)}× ${((1000 * ms) / n).toFixed(1).padStart(8)} µs  ${text}`);
    }
    try {
      writeFileSync(file, `${lines.join('\n')}\n`);
    } catch {
      // A bench aid: nothing to do if the file cannot be written.
    }
  });
}
