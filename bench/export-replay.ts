import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { MAX_OFFSET } from '../shared/schemas/common';
import { rssMb, spawnServer, type Child } from './processes';
import { loopWindow as loopWindowOf } from './loop-window';

/**
 * Replays the full payments CSV export on a kept bench:volume database (issue 18), alone:
 * `tsx bench/export-replay.ts DATA_DIR [--url DATABASE_URL] [--runs N] [--offset-pages [--sessions N]] [--monitor FILE]`.
 * Starts the built server on DATA_DIR (a copy: the server writes to it), logs in as the
 * volume bench's admin, then exports the merchant's year N times, printing per run the event-loop
 * stall max / p99 (monitorEventLoopDelay at 1 ms, preloaded), the RSS growth over the run
 * (sampled every 100 ms from /proc) and a SHA-256 of the bytes. `--offset-pages` first reads the
 * four deep offset pages bench:volume reads before its export (at its depths for `--sessions N`) (their garbage is still being
 * collected when the export starts). Extra server node flags from BENCH_SERVER_NODE_ARGS;
 * `--stdout FILE` keeps the server's stdout (--trace-gc lines); `--monitor bench/loop-gaps.mjs`
 * adds each gap's on-CPU and run-queue time and RSS per mapping; `--pause-ms 32000` between runs
 * lets the report worker end (30 s idle), so each run starts one as the first export does.
 * Needs `npm run build` after any source change: the server runs from source otherwise.
 */
const argv = process.argv.slice(2);
const flag = (name: string) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : undefined;
};
const dir = argv[0]!;
const RUNS = Number(flag('runs') ?? 3);
const monitor = flag('monitor') ?? join(import.meta.dirname, 'loop-monitor.mjs');
const PASSWORD = 'volume bench staff password 2026';
const loopFile = join(dir, 'loop.json');

const loopWindow = (server: Child) => loopWindowOf<Record<string, unknown> & { max_ms: number; p99_ms: number }>(server, loopFile, (msg) => process.stderr.write(`export-replay: ${msg}\n`));

async function main(): Promise<void> {
  const env: Record<string, string> = { PAYDESK_LOOP_MONITOR_FILE: loopFile };
  if (flag('url')) env.DATABASE_URL = flag('url')!;
  const nodeArgs = ['--import', monitor, ...(process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean)];
  const server = await spawnServer(dir, env, nodeArgs);
  // The server's stdout after its listening line (--trace-gc writes there) to a file.
  if (flag('stdout')) server.proc.stdout?.pipe(createWriteStream(flag('stdout')!));
  try {
    const base = `${server.url}/api/backoffice/v1`;
    const login = await fetch(`${server.url}/api/backoffice/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'volume_admin', password: PASSWORD }) });
    const bo = { authorization: `Bearer ${((await login.json()) as { token: string }).token}` };
    const { merchants } = (await (await fetch(`${base}/merchants`, { headers: bo })).json()) as { merchants: Array<{ id: string; name: string }> };
    const merchant = merchants.find((x) => x.name === 'Volume Merchant')!.id;
    const m = `merchant_id=${merchant}`;
    if (argv.includes('--offset-pages')) {
      // bench:volume's four offset pages, at the depths it reads them for --sessions N (default 1M).
      const n = Number(flag('sessions') ?? 1_000_000);
      const deep = (share: number) => Math.min(MAX_OFFSET, Math.floor(n * share)); // past MAX_OFFSET: 400
      const offsets = [`/sessions?${m}&offset=${deep(0.8)}`, `/deposits?offset=${deep(0.08)}`, `/audit?offset=${deep(0.16)}`, `/webhooks/attempts?offset=${deep(0.7)}`];
      for (const path of offsets) {
        const t0 = performance.now();
        const r = await fetch(`${base}${path}`, { headers: bo });
        await r.arrayBuffer();
        process.stderr.write(`offset page ${path}: ${r.status} ${Math.round(performance.now() - t0)} ms\n`);
      }
    }
    const now = Date.now();
    const from = new Date(now - 366 * 86_400_000).toISOString();
    const to = new Date(now + 60_000).toISOString();
    const start = rssMb(server.pid) ?? 0;
    for (let run = 1; run <= RUNS; run++) {
      const w0 = await loopWindow(server);
      const rss0 = rssMb(server.pid) ?? 0;
      let rssMax = rss0;
      const sampler = setInterval(() => (rssMax = Math.max(rssMax, rssMb(server.pid) ?? 0)), 100);
      const t0 = performance.now();
      const res = await fetch(`${base}/reports/payments.csv?${m}&from=${from}&to=${to}`, { headers: bo });
      const hash = createHash('sha256');
      let bytes = 0;
      for await (const chunk of res.body ?? []) {
        bytes += (chunk as Uint8Array).byteLength;
        hash.update(chunk as Uint8Array);
      }
      clearInterval(sampler);
      const w = await loopWindow(server);
      const out = {
        run,
        status: res.status,
        bytes,
        sha256: hash.digest('hex').slice(0, 16),
        seconds: Math.round(performance.now() - t0) / 1000,
        stall_max_ms: w.max_ms,
        stall_p99_ms: w.p99_ms,
        ...(w.gap_cpu_max_ms !== undefined ? { gap_cpu_max_ms: w.gap_cpu_max_ms } : {}),
        window_ms: [w0.now, w.now],
        rss_before_mb: rss0,
        rss_growth_mb: Math.round((rssMax - rss0) * 10) / 10,
        rss_growth_from_start_mb: Math.round((rssMax - start) * 10) / 10,
        idle_window: { max_ms: w0.max_ms, gaps: w0.gaps },
        gaps: w.gaps,
        mem_after: w.mem,
        ...(w0.smaps ? { smaps_growth_mb: Object.fromEntries(Object.entries(w.smaps as Record<string, number>).map(([k, v]) => [k, Math.round((v - ((w0.smaps as Record<string, number>)[k] ?? 0)) * 10) / 10]).filter(([, v]) => Math.abs(v as number) >= 0.5)) } : {}),
      };
      process.stdout.write(`${JSON.stringify(out)}\n`);
      await new Promise((r) => setTimeout(r, Number(flag('pause-ms') ?? 1000)));
    }
  } finally {
    await server.stop(5_000);
    process.stderr.write(server.stderr().slice(-200_000));
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
