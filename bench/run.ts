import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import SQLite from 'better-sqlite3';
import { startReceiver, type Receiver } from './bench-receiver';
import { buildServerBundle, cpuMs, procStatusMb, rssMb, threadCpuMs, runAdmin, spawnNode, spawnServer, type Child } from '../test/support/processes';
import { postgresScenarios } from './postgres';
import { CEILING_OF, ratios, targets, type ScenarioResult } from './bench-targets';
import { nearestRank } from './quantile';

/**
 * `npm run bench` (docs/performance.md): one JSON object per scenario on stdout,
 * `{ scenario, requests, rps, p50_ms, p99_ms, errors }`, then the ratios to the ceilings,
 * the start-up figures and the targets, also as JSON lines. Human notes go to stderr.
 * Everything runs on loopback, in a fresh temporary DATA_DIR, and stops by itself.
 */

const CONNECTIONS = 50;
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 6);
const FANOUT_EVENTS = Number(process.env.BENCH_FANOUT_EVENTS ?? 2000);
/** Extra node flags for the Paydesk server, e.g. BENCH_SERVER_NODE_ARGS=--cpu-prof */
const SERVER_NODE_ARGS = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);

/**
 * `npm run bench -- --only session_get,public_quote`: measure only those scenarios (plus the
 * ceilings their ratios need; `cold_start`, `postgres` and the ceilings can be named too).
 * Scenarios a named one depends on for its data still run, as setup, unmeasured. On a shared
 * machine a short single-scenario run next to its ceiling is less noisy than the whole bench.
 */
const ONLY = (() => {
  const i = process.argv.indexOf('--only');
  const arg = i >= 0 ? process.argv[i + 1] : process.argv.find((a) => a.startsWith('--only='))?.slice(7);
  return arg ? new Set(arg.split(',').map((s) => s.trim()).filter(Boolean)) : null;
})();
const wanted = (scenario: string) => ONLY === null || ONLY.has(scenario);
const ceilingWanted = (ceiling: string) => wanted(ceiling) || [...(ONLY ?? [])].some((s) => CEILING_OF[s] === ceiling);

/** The Paydesk server under test, whose CPU time each scenario line reports per request. */
let serverPid: number | undefined;

const results = new Map<string, ScenarioResult>();
const note = (msg: string) => process.stderr.write(`bench: ${msg}\n`);
const line = (obj: object) => process.stdout.write(`${JSON.stringify(obj)}\n`);
const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;

type Options = autocannon.Options;

function cannon(scenario: string, opts: Omit<Options, 'connections'> & { connections?: number }): Promise<ScenarioResult> {
  return new Promise((resolve, reject) => {
    const settings: Options = { connections: CONNECTIONS, duration: DURATION_S, ...opts };
    const pid = scenario.startsWith('ceiling_') ? undefined : serverPid;
    const cpu0 = pid === undefined ? null : cpuMs(pid);
    const instance = autocannon(settings, (err, r) => {
      clearTimeout(guard);
      if (err) return reject(err);
      const cpu1 = pid === undefined ? null : cpuMs(pid);
      const seconds = r.duration > 0 ? r.duration : DURATION_S;
      const out: ScenarioResult = {
        scenario,
        requests: r.requests.total,
        rps: round(r.requests.total / seconds, 1),
        p50_ms: r.latency.p50,
        p99_ms: r.latency.p99,
        errors: r.errors + r.timeouts + r.non2xx,
        ...(cpu0 !== null && cpu1 !== null && r.requests.total > 0 ? { server_cpu_us_per_req: Math.round(((cpu1 - cpu0) * 1000) / r.requests.total) } : {}),
      };
      results.set(scenario, out);
      line(out);
      resolve(out);
    });
    // A run bounded by `amount` must still stop: never more than three durations.
    const guard = setTimeout(() => instance.stop(), DURATION_S * 3000);
  });
}

const json = (headers: Record<string, string> = {}) => ({ 'content-type': 'application/json', ...headers });

async function http<T>(url: string, init: RequestInit & { expect?: number } = {}): Promise<T> {
  const res = await fetch(url, init);
  const text = await res.text();
  if (init.expect !== undefined && res.status !== init.expect) throw new Error(`${init.method ?? 'GET'} ${url}: ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as T;
}

async function waitHealthy(url: string, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    try {
      if ((await fetch(`${url}/healthz`)).status === 200) return;
    } catch {
      /* not yet */
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`${url}/healthz never answered 200`);
}

// ---------------------------------------------------------------- scenarios

async function ceilings(): Promise<void> {
  if (ceilingWanted('ceiling_fastify_json')) {
    const jsonCeiling = await spawnNode('bench/ceiling-server.ts', ['json'], {});
    try {
      await cannon('ceiling_fastify_json', { url: `${jsonCeiling.url}/` });
    } finally {
      await jsonCeiling.stop();
    }
  }
  if (!ceilingWanted('ceiling_sqlite_insert')) return;
  const sqliteCeiling = await spawnNode('bench/ceiling-server.ts', ['sqlite'], {});
  try {
    let n = 0;
    await cannon('ceiling_sqlite_insert', {
      url: `${sqliteCeiling.url}/`,
      method: 'POST',
      headers: json(),
      requests: [{ setupRequest: (req) => ({ ...req, body: JSON.stringify({ amount_minor: 1000, invoice_ref: `INV-C-${++n}` }) }) }],
    });
  } finally {
    await sqliteCeiling.stop();
  }
}

async function coldStart(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'paydesk-bench-cold-'));
  let server: Child | undefined;
  try {
    const t0 = performance.now();
    server = await spawnServer(dir);
    await waitHealthy(server.url);
    const coldMs = performance.now() - t0;
    line({ metric: 'cold_start_ms', value: Math.round(coldMs), detail: 'spawn of node scripts/serve.mjs (what npm run serve runs: the prebuilt server bundle) on an empty DATA_DIR (migrations included) to the first /healthz 200' });
    results.set('cold_start_ms', { scenario: 'cold_start_ms', requests: 0, rps: 0, p50_ms: Math.round(coldMs), p99_ms: Math.round(coldMs), errors: 0 });
    await new Promise((r) => setTimeout(r, 2000));
    const rss = rssMb(server.pid);
    line({ metric: 'idle_rss_mb', value: rss, detail: 'VmRSS of the server 2 s after start, no traffic' });
    if (rss !== null) results.set('idle_rss_mb', { scenario: 'idle_rss_mb', requests: 0, rps: 0, p50_ms: rss, p99_ms: rss, errors: 0 });
  } finally {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The same cold start and idle RSS for the TypeScript source run through tsx (what
 * `npm run serve` falls back to when the bundle is older than the sources): the tsx loader
 * compiles and resolves every module through its hooks thread at start.
 */
async function coldStartFromSource(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'paydesk-bench-cold-'));
  let server: Child | undefined;
  try {
    const t0 = performance.now();
    server = await spawnNode('server/main.ts', [], { DATA_DIR: dir, PORT: '0', HOST: '127.0.0.1', RATE_LIMIT_PER_MIN: '0', LOG_LEVEL: 'warn' });
    await waitHealthy(server.url);
    line({ metric: 'cold_start_source_ms', value: Math.round(performance.now() - t0), detail: 'same, TypeScript source through tsx (node --import tsx server/main.ts)' });
    await new Promise((r) => setTimeout(r, 2000));
    line({ metric: 'idle_rss_source_mb', value: rssMb(server.pid), detail: 'same, source through tsx' });
  } finally {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function paydeskScenarios(receiver: Receiver): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'paydesk-bench-'));
  let server: Child | undefined;
  try {
    // Fast retries so a delivery held back by the gated receiver is due again within a second.
    server = await spawnServer(dir, { WEBHOOK_RETRY_DELAYS_S: Array(40).fill('1').join(',') }, SERVER_NODE_ARGS);
    const base = server.url;
    serverPid = server.pid;
    const created = await runAdmin<{ api_key: string }>(dir, ['integration:create', '--merchant', 'Bench Merchant', '--webhook-url', receiver.url]);
    const auth = { authorization: `Bearer ${created.api_key}` };

    // Revenue lines for the 100-line invoices.
    const codes = Array.from({ length: 100 }, (_, i) => `SVC${String(i).padStart(3, '0')}`);
    await http(`${base}/api/v1/revenue-lines`, {
      method: 'POST',
      headers: json(auth),
      body: JSON.stringify({ lines: codes.map((code) => ({ code, name: `Service ${code}` })) }),
      expect: 200,
    });

    // session_create: a fresh Idempotency-Key and invoice per request; the ids feed the momo scenario.
    const sessionIds: string[] = [];
    let n = 0;
    const runId = Date.now().toString(36);
    await cannon('session_create', {
      url: `${base}/api/v1/sessions`,
      method: 'POST',
      requests: [
        {
          setupRequest: (req) => {
            n++;
            return {
              ...req,
              headers: json({ ...auth, 'idempotency-key': `bench-${runId}-${n}` }),
              body: JSON.stringify({ amount_minor: 1000, invoice_ref: `INV-B-${runId}-${n}`, description: 'Bench water bill' }),
            };
          },
          onResponse: (status, body) => {
            if (status === 201) sessionIds.push((JSON.parse(body) as { id: string }).id);
          },
        },
      ],
    });
    const first = sessionIds[0];
    if (!first) throw new Error('session_create produced no session');

    if (wanted('session_get')) await cannon('session_get', { url: `${base}/api/v1/sessions/${first}`, headers: auth });
    if (wanted('public_quote')) await cannon('public_quote', { url: `${base}/api/v1/checkout/sessions/${first}/quote` });

    let m = 0;
    const lines = codes.map((code, i) => ({ code, amount_minor: 100 + i }));
    if (wanted('invoice_lines_ingest')) await cannon('invoice_lines_ingest', {
      url: `${base}/api/v1/invoice-lines`,
      method: 'POST',
      requests: [
        {
          setupRequest: (req) => ({ ...req, headers: json(auth), body: JSON.stringify({ invoice_ref: `INV-L-${runId}-${++m}`, lines }) }),
        },
      ],
    });

    const later = ['momo_attempt_create', 'momo_authorize', 'webhook_fanout'];
    if (!later.some(wanted)) {
      afterLoadRss(server.pid);
      return;
    }
    // momo_attempt_create: one fresh open session per request, round-robin over those created above.
    const quote = await http<{ surcharges: Record<string, { total_minor: number }> }>(`${base}/api/v1/checkout/sessions/${first}/quote`, { expect: 200 });
    const momoTotal = quote.surcharges.momo?.total_minor;
    if (momoTotal === undefined) throw new Error('quote has no momo total');
    const attempts: Array<{ session: string; attempt: string }> = [];
    let k = 0;
    await cannon('momo_attempt_create', {
      url: base,
      method: 'POST',
      amount: sessionIds.length,
      requests: [
        {
          setupRequest: (req, context) => {
            const session = sessionIds[k++ % sessionIds.length];
            (context as { session?: string }).session = session;
            return {
              ...req,
              path: `/api/v1/checkout/sessions/${session}/provider-attempts`,
              headers: json(),
              body: JSON.stringify({ rail: 'momo', amount_minor: momoTotal, operator: 'mtn', phone: '0241234567' }),
            };
          },
          // One request in flight per connection, so the connection's context names this response's session.
          onResponse: (status, body, context) => {
            if (status === 201) attempts.push({ session: String((context as { session?: string }).session), attempt: (JSON.parse(body) as { attempt_reference: string }).attempt_reference });
          },
        },
      ],
    });
    await webhookFanout(base, receiver, attempts, join(dir, 'paydesk.sqlite'));
    afterLoadRss(server.pid);
  } finally {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

function afterLoadRss(pid: number): void {
  const rss = rssMb(pid);
  const parts = procStatusMb(pid, ['RssAnon', 'RssFile', 'RssShmem', 'VmHWM']);
  // Resident memory by kind (anonymous, file-backed, shared) and its peak.
  note(`rss_after_bench_mb: ${parts ? Object.entries(parts).map(([k, mb]) => `${k} ${mb ?? '?'}`).join(', ') : 'unreadable'}`);
  line({ metric: 'rss_after_bench_mb', value: rss, detail: ONLY ? 'VmRSS of the server after the scenarios run (--only: not the whole bench)' : 'VmRSS of the server after every scenario' });
  if (rss !== null && ONLY === null) results.set('rss_after_bench_mb', { scenario: 'rss_after_bench_mb', requests: 0, rps: 0, p50_ms: rss, p99_ms: rss, errors: 0 });
}

/**
 * webhook_fanout: terminal events per second delivered and acknowledged by a local receiver
 * (its own process, its answering path warmed first: bench-receiver.ts). The window opens once
 * the server has folded the earlier scenarios' invoice-summary deltas (below).
 * The receiver first holds every request unanswered (bench-receiver.ts), so the
 * `checkout.session.completed` events of FANOUT_EVENTS authorised Mobile Money attempts pile
 * up in the outbox, due (the dispatcher's `concurrency` attempts wait at the receiver); then it
 * opens and the figure is distinct events acknowledged / time from opening to the last ack.
 * Sessions are driven to success by authorising the attempts momo_attempt_create started
 * (reported as momo_authorize).
 */
async function webhookFanout(base: string, receiver: Receiver, attempts: Array<{ session: string; attempt: string }>, databaseFile: string): Promise<void> {
  const batch = attempts.slice(0, FANOUT_EVENTS);
  // The receiver stands in for a merchant's long-running server: its answering path is warmed
  // first, so what the window times is the server's work (bench-receiver.ts `warm`).
  await receiver.warm(FANOUT_EVENTS * 2);
  let i = 0;
  await cannon('momo_authorize', {
    url: base,
    method: 'POST',
    amount: batch.length,
    requests: [
      {
        setupRequest: (req) => {
          const a = batch[i++ % batch.length]!;
          return {
            ...req,
            path: `/api/v1/checkout/sessions/${a.session}/provider-attempts/${a.attempt}/authorize`,
            headers: json(),
            body: JSON.stringify({ code: '123456' }),
          };
        },
      },
    ],
  });
  const authorised = results.get('momo_authorize');
  const expected = (authorised?.requests ?? 0) - (authorised?.errors ?? 0);
  const unavailable = (reason: string) => {
    line({ scenario: 'webhook_fanout', requests: 0, rps: 0, p50_ms: 0, p99_ms: 0, errors: expected });
    line({ check: 'webhook_fanout', available: false, reason });
    note(`webhook_fanout: NOT MEASURED: ${reason}`);
  };
  if (expected <= 0) return unavailable('no session reached success, so there was nothing to deliver');

  // The dispatcher must have tried at least one delivery while the receiver was gated.
  const tried = Date.now() + 10_000;
  const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
  while ((await receiver.stats()).attempts === 0 && Date.now() < tried) await pause(100);
  if ((await receiver.stats()).attempts === 0) {
    return unavailable(`webhook delivery is not available: ${expected} sessions reached success but no delivery attempt reached the receiver within 10 s`);
  }
  // Each authorisation (and each session create before it) left the invoice summaries a delta,
  // which the server's sweeper folds 100 ms a tick (jobs/invoice-summary-fold.ts; 3.7-6.9 s after
  // the last authorisation when measured): the earlier scenarios' work, done before the window, as it
  // would be long before a receiver outage ends (a read-only look at the file).
  const reader = new SQLite(databaseFile, { readonly: true, fileMustExist: true });
  try {
    const pending = reader.prepare('SELECT EXISTS (SELECT 1 FROM invoice_summary_deltas) AS n').pluck();
    const t0 = Date.now();
    while (pending.get() === 1 && Date.now() < t0 + 10_000) await pause(50);
    note(`webhook_fanout: the authorisations' invoice-summary deltas folded ${Date.now() - t0} ms after the last one${pending.get() === 1 ? ' (NOT all: gave up after 10 s)' : ''}`);
  } finally {
    reader.close();
  }
  // The gated receiver holds the attempts it gets; one that timed out (10 s) is due again 1 s
  // later. Open when none was dropped in the last 1.5 s, so the whole backlog is due at opening.
  const settle = Date.now() + 15_000;
  await pause(500);
  for (;;) {
    const { droppedAgoMs } = await receiver.stats();
    if (droppedAgoMs === null || droppedAgoMs >= 1500 || Date.now() >= settle) break;
    await pause(100);
  }
  const cpu0 = serverPid === undefined ? null : cpuMs(serverPid);
  const threads0 = serverPid === undefined ? {} : threadCpuMs(serverPid);
  // The receiver is a process of its own (bench-receiver.ts), on the same cores as the server.
  const receiverCpu0 = cpuMs(receiver.pid);
  const connections0 = (await receiver.stats()).connections;
  const window0 = process.hrtime.bigint() / 1000n;
  await receiver.open();
  const deadline = Date.now() + 60_000;
  let acked = (await receiver.stats()).acked;
  while (acked < expected && Date.now() < deadline) {
    await pause(20);
    acked = (await receiver.stats()).acked;
  }
  const cpu1 = serverPid === undefined ? null : cpuMs(serverPid);
  const threads1 = serverPid === undefined ? {} : threadCpuMs(serverPid);
  const receiverCpu1 = cpuMs(receiver.pid);
  // The window on the monotonic clock, as V8 stamps profile samples (bench/diagnostics/profile-summary.ts FROM_US TO_US).
  note(`webhook_fanout: the window on the monotonic clock: ${window0} ${process.hrtime.bigint() / 1000n} (µs)`);
  note(`webhook_fanout: ${(await receiver.stats()).connections - connections0} connections opened to the receiver in the window`);
  // Where the server's CPU went in the window, per thread (the main thread, V8's compiler and GC helpers, libuv's pool, workers).
  note(`webhook_fanout: server CPU ms in the window by thread: ${Object.keys(threads1).map((k) => `${k} ${Math.round(threads1[k]! - (threads0[k] ?? 0))}`).filter((e) => !e.endsWith(' 0')).join(', ')}`);
  // ms from opening to each event's first acknowledgement (the receiver's clock).
  const times = (await receiver.ackTimes()).sort((a, b) => a - b);
  const seconds = Math.max((times[times.length - 1] ?? 0) / 1000, 0.001);
  // With BENCH_FANOUT_EVENTS above 2,000: the later thousands show the rate once the delivery path is compiled.
  note(`webhook_fanout: ms from opening to the 1,000th, 2,000th, … acknowledgement: ${times.filter((_, k) => (k + 1) % 1000 === 0).map((t) => Math.round(t)).join(' ')}`);
  const lat = (q: number) => round(nearestRank(times, q), 1);
  const out: ScenarioResult = {
    scenario: 'webhook_fanout',
    requests: acked,
    rps: round(acked / seconds, 1),
    // Time from the receiver opening until half / 99 % of the backlog was acknowledged.
    p50_ms: lat(0.5),
    p99_ms: lat(0.99),
    errors: Math.max(0, expected - acked),
    // Server CPU from opening to the last poll, per delivery acknowledged.
    ...(cpu0 !== null && cpu1 !== null && acked > 0 ? { server_cpu_us_per_req: Math.round(((cpu1 - cpu0) * 1000) / acked) } : {}),
    // The receiver's CPU in the same window: it shares the cores with the server.
    ...(receiverCpu0 !== null && receiverCpu1 !== null && acked > 0 ? { receiver_cpu_us_per_req: Math.round(((receiverCpu1 - receiverCpu0) * 1000) / acked) } : {}),
  };
  results.set('webhook_fanout', out);
  line(out);
}

// ---------------------------------------------------------------- main

async function main(): Promise<void> {
  const started = Date.now();
  // Measure what `npm run serve` runs: a server bundle built from the current sources.
  buildServerBundle();
  note(`${CONNECTIONS} connections, ${DURATION_S} s per scenario; loopback only; figures are noisy on a shared machine`);
  const receiver = await startReceiver();
  try {
    await ceilings();
    if (wanted('cold_start')) {
      await coldStart();
      await coldStartFromSource();
    }
    const paydesk = ['session_create', 'session_get', 'public_quote', 'invoice_lines_ingest', 'momo_attempt_create', 'momo_authorize', 'webhook_fanout'];
    if (paydesk.some(wanted)) await paydeskScenarios(receiver);
    if (process.env.BENCH_POSTGRES !== '0' && wanted('postgres')) await postgresScenarios(line, note, { connections: CONNECTIONS, durationS: DURATION_S, serverNodeArgs: SERVER_NODE_ARGS });
    ratios(results, line);
    targets(results, line, ONLY !== null);
  } finally {
    receiver.close();
  }
  note(`done in ${Math.round((Date.now() - started) / 1000)} s`);
}

const abort = (signal: string) => {
  note(`${signal}: stopping`);
  process.exit(130); // the exit hook in processes.ts kills every child
};
process.on('SIGINT', () => abort('SIGINT'));
process.on('SIGTERM', () => abort('SIGTERM'));

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`bench failed: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);
