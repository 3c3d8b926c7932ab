import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import autocannon from 'autocannon';
import SQLite from 'better-sqlite3';
import { ROOT, cpuMs, runAdmin, spawnServer, type Child } from './processes';
import { signalWindows } from './loop-window';

/**
 * `npx tsx bench/stall-trace.ts --data-dir DIR [--seconds 30] [--out FILE]` (issue 18): where the
 * event-loop stalls of bench:volume's mixed load come from. Runs the same load as bench/volume.ts
 * (5 s of creates, 5 s of reads, then S s of creates and reads on 10 connections) against the
 * server on DIR — a COPY of a seeded database: the run writes to it — with bench/loop-monitor.mjs
 * and bench/stall-trace.mjs preloaded, then prints the loop monitor's window, every stall whose own CPU was
 * over 10 ms with the statements and spans that overlap it, the WAL checkpoints, and per span name
 * (the sweeper's jobs when the server build reports them: bench/stall-trace-spans.patch) count
 * and p50/p90/p99/max in ms, wall and CPU. On a shared machine compare the gaps' own CPU
 * (`gaps_cpu`, `cpu_stalls_over_10ms`), not their wall time.
 */
const argv = process.argv.slice(2);
const flag = (name: string) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : undefined;
};
const dir = flag('data-dir');
if (!dir) throw new Error('--data-dir DIR (a copy of a seeded DATA_DIR)');
const SECONDS = Number(flag('seconds') ?? 30);
const OUT = flag('out') ?? join(dir, 'stall-trace.json');

type Ev = { t0: number; t1: number; ms: number; name?: string; sql?: string; [k: string]: unknown };
type Trace = { gaps: Ev[]; statements: Ev[]; spans: Ev[]; checkpoints: Ev[]; writes: { commits: number; autocommit: number } };

const r2 = (n: number) => Math.round(n * 100) / 100;
function dist(xs: number[]) {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p: number) => (s.length ? r2(s[Math.min(s.length - 1, Math.floor(p * s.length))]!) : null);
  return { n: s.length, p50: q(0.5), p90: q(0.9), p99: q(0.99), max: s.length ? r2(s.at(-1)!) : null, over10: s.filter((x) => x > 10).length, over18: s.filter((x) => x > 18).length };
}

const signal = (server: Child, files: string[]) => signalWindows(server, files, (msg) => process.stderr.write(`stall-trace: ${msg}\n`));

async function main(): Promise<void> {
  const loopFile = join(dir!, 'loop.json');
  const traceFile = join(dir!, 'trace.json');
  const created = await runAdmin<{ api_key: string }>(dir!, ['integration:create', '--merchant', 'Stall Trace Merchant']);
  const auth = { authorization: `Bearer ${created.api_key}`, 'content-type': 'application/json' };
  const createBody = JSON.stringify({ amount_minor: 12_500, invoice_ref: 'VOL-NEW', customer: { name: 'Ama Mensah' } });
  const ro = new SQLite(join(dir!, 'paydesk.sqlite'), { readonly: true });
  const n = (ro.prepare('SELECT count(*) AS n FROM checkout_sessions').get() as { n: number }).n;
  ro.close();

  const env = { PAYDESK_LOOP_MONITOR_FILE: loopFile, PAYDESK_STALL_TRACE_FILE: traceFile };
  const nodeArgs = ['--import', join(ROOT, 'bench/loop-monitor.mjs'), '--import', join(ROOT, 'bench/stall-trace.mjs'), ...(process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean)];
  const server = await spawnServer(dir!, env, nodeArgs);
  try {
    const one = await fetch(`${server.url}/api/v1/sessions`, { method: 'POST', headers: auth, body: createBody });
    const id = ((await one.json()) as { id: string }).id;
    // As bench/volume.ts before its mixed window: 5 s of creates, 5 s of reads.
    await autocannon({ url: `${server.url}/api/v1/sessions`, method: 'POST', headers: auth, body: createBody, connections: 10, duration: 5 });
    await autocannon({ url: `${server.url}/api/v1/sessions/${id}`, headers: auth, connections: 10, duration: 5 });
    await signal(server, [loopFile, traceFile]);
    const cpu0 = cpuMs(server.pid) ?? 0;
    const mixed = await autocannon({
      url: server.url,
      connections: 10,
      duration: SECONDS,
      requests: [
        { method: 'POST', path: '/api/v1/sessions', headers: auth, body: createBody },
        { method: 'GET', path: `/api/v1/sessions/${id}`, headers: auth },
      ],
    });
    const cpu = (cpuMs(server.pid) ?? 0) - cpu0;
    const [loop, trace] = (await signal(server, [loopFile, traceFile])) as [{ max_ms: number; p99_ms: number }, Trace];
    writeFileSync(OUT, JSON.stringify(trace));

    const byName = new Map<string, Ev[]>();
    for (const s of trace.spans) byName.set(s.name!, [...(byName.get(s.name!) ?? []), s]);
    const overlap = (g: Ev, evs: Ev[]) => evs.filter((e) => e.t0 < g.t1 && e.t1 > g.t0).sort((a, b) => b.ms - a.ms);
    const out = {
      sessions: n,
      seconds: SECONDS,
      requests: mixed.requests.total,
      errors: mixed.errors + mixed.non2xx,
      server_cpu_us_per_req: Math.round((cpu * 1000) / Math.max(1, mixed.requests.total)),
      loop_monitor: loop,
      gaps: dist(trace.gaps.map((g) => g.ms)),
      gaps_cpu: dist(trace.gaps.map((g) => Number(g.cpu_ms))),
      checkpoints: { ...dist(trace.checkpoints.map((c) => c.ms)), cpu: dist(trace.checkpoints.map((c) => Number(c.cpu_ms))), frames: dist(trace.checkpoints.map((c) => Number(c.frames))) },
      writes: trace.writes,
      spans: Object.fromEntries([...byName].map(([k, v]) => [k, { wall: dist(v.map((e) => e.ms)), cpu: dist(v.map((e) => Number(e.cpu_ms))) }])),
      statements_over_5ms: Object.entries(
        trace.statements.filter((s) => s.ms > 5).reduce<Record<string, number[]>>((acc, s) => {
          const k = String(s.sql).slice(0, 70);
          (acc[k] ??= []).push(s.ms);
          return acc;
        }, {}),
      ).map(([sql, ms]) => ({ sql, ...dist(ms) })),
      // The gaps whose own CPU (not the machine's other work) was over 10 ms, largest first.
      cpu_stalls_over_10ms: trace.gaps
        .filter((g) => Number(g.cpu_ms) > 10)
        .sort((a, b) => Number(b.cpu_ms) - Number(a.cpu_ms))
        .map((g) => ({
          ms: r2(g.ms),
          cpu_ms: r2(Number(g.cpu_ms)),
          spans: overlap(g, trace.spans).slice(0, 4).map((s) => `${s.name} ${r2(s.ms)}ms cpu ${r2(Number(s.cpu_ms))} ${JSON.stringify(Object.fromEntries(Object.entries(s).filter(([k]) => !['t0', 't1', 'ms', 'name', 'cpu_ms'].includes(k))))}`),
          statements: overlap(g, trace.statements).slice(0, 4).map((s) => `${r2(s.ms)}ms${s.cpu_ms != null ? ` (cpu ${r2(Number(s.cpu_ms))})` : ''}${s.ckpt ? ` CHECKPOINT ${JSON.stringify(s.ckpt)}` : ''} ${String(s.sql).slice(0, 90)}`),
        })),
    };
    process.stdout.write(`${JSON.stringify(out, null, 1)}\n`);
  } finally {
    await server.stop(5_000);
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
