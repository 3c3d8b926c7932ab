import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { openDatabase } from '../server/db/database';
import { sweep } from '../server/domain/sweeper';
import { systemClock } from '../server/lib/clock';
import { randomIds } from '../server/lib/ids';
import { createOutbox } from '../server/modules/webhooks/outbox';
import { encodeCursor } from '../server/modules/finance/finance-paging';
import { ROOT, rssMb, runAdmin, spawnServer, type Child } from './processes';
import { seedVolume } from './volume-seed';

/**
 * `npm run bench:volume [-- --sessions N]` (issue 18): the cost of a database a year old. Seeds N
 * sessions (1,000,000 by default) with their attempts, slips, deposits, events, deliveries,
 * attempt logs, audit and history (bench/volume-seed.ts), then measures on that database
 * what the issue asks and prints one `{metric, value, threshold, holds}` JSON line each.
 * Event-loop stall: perf_hooks.monitorEventLoopDelay inside the server process, preloaded by
 * bench/loop-monitor.mjs (no server code). Loopback only; a fresh temp DATA_DIR; stops by itself.
 */
const argv = process.argv.slice(2);
const flag = (name: string) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : undefined;
};
const N = Number(flag('sessions') ?? 1_000_000);
const SHARED_INVOICE = Math.min(100_000, Math.floor(N / 10));
const MIXED_S = Number(flag('mixed-seconds') ?? 30);
const PASSWORD = 'volume bench staff password 2026';

const note = (msg: string) => process.stderr.write(`bench:volume: ${msg}\n`);
const line = (metric: string, value: number, threshold: number | null, holds: boolean | null, extra: object = {}) =>
  process.stdout.write(`${JSON.stringify({ metric, value, threshold, holds, ...extra })}\n`);
const round = (n: number) => Math.round(n * 100) / 100;

async function p99(url: string, opts: Partial<autocannon.Options>, seconds: number): Promise<{ p99: number; rps: number; errors: number }> {
  const r = await autocannon({ url, connections: 10, duration: seconds, ...opts });
  return { p99: r.latency.p99, rps: Math.round(r.requests.average), errors: r.errors + r.timeouts + r.non2xx };
}

/** The server's event-loop delay since the last read (bench/loop-monitor.mjs). */
async function loopWindow(server: Child, file: string): Promise<{ max_ms: number; p99_ms: number }> {
  process.kill(server.pid, 'SIGUSR2');
  await new Promise((r) => setTimeout(r, 200));
  return JSON.parse(readFileSync(file, 'utf8')) as { max_ms: number; p99_ms: number };
}

async function timed(url: string, headers: Record<string, string>, timeoutMs = 120_000): Promise<{ ms: number; bytes: number; status: number }> {
  const samples: number[] = [];
  let bytes = 0;
  let status = 0;
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    try {
      const res = await fetch(url, { headers, signal: AbortSignal.timeout(timeoutMs) });
      const body = await res.arrayBuffer();
      bytes = body.byteLength;
      status = res.status;
    } catch {
      status = 0; // past the timeout: recorded as such, the run goes on
      samples.push(performance.now() - t0);
      break;
    }
    samples.push(performance.now() - t0);
    // A page slower than a second is measured once: three of them would only lengthen the run.
    if (samples[0]! > 1000) break;
  }
  samples.sort((a, b) => a - b);
  return { ms: round(samples[Math.floor(samples.length / 2)]!), bytes, status };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'paydesk-volume-'));
  const loopFile = join(dir, 'loop.json');
  const serverEnv = { PAYDESK_LOOP_MONITOR_FILE: loopFile };
  const nodeArgs = ['--import', join(ROOT, 'bench/loop-monitor.mjs')];
  let server: Child | null = null;
  try {
    const created = await runAdmin<{ api_key: string; merchant_id: string; integration_id: string }>(dir, ['integration:create', '--merchant', 'Volume Merchant']);
    const staff = await runAdmin<{ id: string; username: string }>(dir, ['staff:create', '--username', 'volume_admin', '--password', PASSWORD, '--role', 'admin']);
    const auth = { authorization: `Bearer ${created.api_key}`, 'content-type': 'application/json' };
    const createBody = JSON.stringify({ amount_minor: 12_500, invoice_ref: 'VOL-NEW', customer: { name: 'Ama Mensah' } });

    const measureApi = async (label: string) => {
      if (!server) throw new Error('no server');
      const one = await fetch(`${server.url}/api/v1/sessions`, { method: 'POST', headers: auth, body: createBody });
      const id = ((await one.json()) as { id: string }).id;
      const c = await p99(`${server.url}/api/v1/sessions`, { method: 'POST', headers: auth, body: createBody }, 5);
      const g = await p99(`${server.url}/api/v1/sessions/${id}`, { headers: auth }, 5);
      note(`${label}: create p99 ${c.p99} ms (${c.rps} rps, ${c.errors} errors), get p99 ${g.p99} ms (${g.rps} rps, ${g.errors} errors)`);
      return { create: c.p99, get: g.p99 };
    };

    note('empty database: session_create / session_get');
    server = await spawnServer(dir, serverEnv, nodeArgs);
    const empty = await measureApi('empty');
    await server.stop();
    server = null;

    note(`seeding ${N.toLocaleString()} sessions`);
    const file = join(dir, 'paydesk.sqlite');
    const opened = openDatabase(file);
    const now = new Date();
    const endpointId = `we_${randomIds.token('', 20)}`;
    opened.sqlite
      .prepare(`INSERT INTO webhook_endpoints (id, integration_id, url, secret, status, disabled_reason, created_at, updated_at) VALUES (?, ?, 'https://hooks.example.com/paydesk', ?, 'disabled', 'bench', ?, ?)`)
      .run(endpointId, created.integration_id, `whsec_${randomIds.token('', 32)}`, now.toISOString(), now.toISOString());
    const branch = opened.sqlite.prepare('SELECT id FROM branches LIMIT 1').get() as { id: string };
    const t0 = performance.now();
    const counts = seedVolume({ sqlite: opened.sqlite, n: N, merchantId: created.merchant_id, integrationId: created.integration_id, endpointId, staffId: staff.id, staffUsername: staff.username, branchId: branch.id, sharedInvoice: SHARED_INVOICE, now });
    const seedS = (performance.now() - t0) / 1000;
    opened.sqlite.pragma('wal_checkpoint(TRUNCATE)');
    note(`seeded in ${seedS.toFixed(1)} s: ${JSON.stringify(counts)}`);
    line('seed_seconds', round(seedS), null, null, { rows: counts });
    const fileMb = statSync(file).size / 1e6;
    line('file_mb_per_million_sessions', round((fileMb / N) * 1e6), null, null, { file_mb: round(fileMb), sessions: N });

    // The sweeper's tick on this database, in this process (the server is not running): nothing is due, as between bursts.
    const deps = { clock: systemClock, ids: randomIds, outbox: createOutbox() };
    await sweep(opened.db, deps);
    const ticks: number[] = [];
    for (let i = 0; i < 20; i++) {
      const s0 = performance.now();
      await sweep(opened.db, deps);
      ticks.push(performance.now() - s0);
    }
    ticks.sort((a, b) => a - b);
    line('sweeper_tick_ms_max', round(ticks.at(-1)!), 5, ticks.at(-1)! <= 5, { median_ms: round(ticks[10]!) });
    const deep = opened.sqlite.prepare(`SELECT id, created_at FROM checkout_sessions WHERE merchant_id = ? ORDER BY created_at DESC, id DESC LIMIT 1 OFFSET ?`).get(created.merchant_id, Math.floor(N * 0.8)) as { id: string; created_at: string };
    const someoneLast4 = String(4242).padStart(4, '0');
    await opened.close();

    server = await spawnServer(dir, serverEnv, nodeArgs);
    const full = await measureApi(`${N} sessions`);
    line('session_create_p99_ratio', round(full.create / Math.max(empty.create, 1)), 1.5, full.create <= 1.5 * Math.max(empty.create, 1), { empty_ms: empty.create, full_ms: full.create });
    line('session_get_p99_ratio', round(full.get / Math.max(empty.get, 1)), 1.5, full.get <= 1.5 * Math.max(empty.get, 1), { empty_ms: empty.get, full_ms: full.get });

    note(`mixed load for ${MIXED_S} s (creates and reads, the sweeper running)`);
    await loopWindow(server, loopFile);
    let healthMax = 0;
    let polling = true;
    const poll = (async () => {
      while (polling) {
        const h0 = performance.now();
        await fetch(`${server!.url}/healthz`);
        healthMax = Math.max(healthMax, performance.now() - h0);
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    const mixed = await autocannon({
      url: server.url,
      connections: 10,
      duration: MIXED_S,
      requests: [
        { method: 'POST', path: '/api/v1/sessions', headers: auth, body: createBody },
        { method: 'GET', path: `/api/v1/sessions/${deep.id}`, headers: auth },
      ],
    });
    polling = false;
    await poll;
    const stall = await loopWindow(server, loopFile);
    line('event_loop_stall_max_ms_mixed', stall.max_ms, 20, stall.max_ms <= 20, { p99_ms: stall.p99_ms, healthz_max_ms: round(healthMax), requests: mixed.requests.total, errors: mixed.errors + mixed.non2xx });

    const login = await fetch(`${server.url}/api/backoffice/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'volume_admin', password: PASSWORD }) });
    const token = ((await login.json()) as { token: string }).token;
    const bo = { authorization: `Bearer ${token}` };
    const m = `merchant_id=${created.merchant_id}`;
    const deepOffset = Math.floor(N * 0.8);
    const cursor = encodeCursor('created_at', 'desc', deep.created_at, deep.id);
    const pages: Array<[string, string]> = [
      ['sessions_first', `/sessions?${m}`],
      ['sessions_deep_cursor', `/sessions?${m}&cursor=${cursor}`],
      ['sessions_deep_offset', `/sessions?${m}&offset=${deepOffset}`],
      ['search_name', `/sessions?${m}&q=${encodeURIComponent(`Payer ${N - 7}`)}`],
      // 111 sessions ("Payer 9999", "Payer 99990"…, "Payer 999900"… at a million): the last page of them.
      ['search_name_deep', `/sessions?${m}&q=${encodeURIComponent(`Payer ${Math.floor((N - 1) / 100)}`)}&offset=100`],
      // Shorter than a trigram: the exact invoice ref only (finance-search.ts).
      ['search_short', `/sessions?${m}&q=Pa`],
      // A broad text: "Payer 1" is in 1 name of 9 — the cost is that of every session found (sorted, counted).
      ['search_broad', `/sessions?${m}&q=${encodeURIComponent('Payer 1')}`],
      ['search_phone_last4', `/sessions?${m}&q=${someoneLast4}`],
      ['search_session_id', `/sessions?${m}&q=${deep.id}`],
      ['search_amount', `/sessions?${m}&amount_minor=25000`],
      ['invoice_detail_100k', `/invoices/DONATION?${m}`],
      ['deposits_first', '/deposits'],
      ['deposits_deep', `/deposits?offset=${Math.floor(N * 0.08)}`],
      ['audit_first', '/audit'],
      ['audit_deep', `/audit?offset=${Math.floor(N * 0.16)}`],
      ['webhook_deliveries_first', '/webhooks/deliveries'],
      ['webhook_attempts_first', '/webhooks/attempts'],
      ['webhook_attempts_deep', `/webhooks/attempts?offset=${Math.floor(N * 0.7)}`],
    ];
    for (const [name, path] of pages) {
      const r = await timed(`${server.url}/api/backoffice/v1${path}`, bo);
      line(`backoffice_${name}_ms`, r.ms, 50, r.status === 200 && r.ms <= 50, { status: r.status, bytes: r.bytes });
    }

    note('full CSV export of the paid sessions');
    await loopWindow(server, loopFile);
    const rss0 = rssMb(server.pid) ?? 0;
    let rssMax = rss0;
    const sampler = setInterval(() => (rssMax = Math.max(rssMax, rssMb(server!.pid) ?? 0)), 100);
    const e0 = performance.now();
    const from = new Date(now.getTime() - 365 * 86_400_000 - 60_000).toISOString();
    const res = await fetch(`${server.url}/api/backoffice/v1/reports/payments.csv?${m}&from=${from}&to=${new Date(now.getTime() + 60_000).toISOString()}`, { headers: bo });
    let bytes = 0;
    for await (const chunk of res.body ?? []) bytes += (chunk as Uint8Array).byteLength;
    clearInterval(sampler);
    const exportStall = await loopWindow(server, loopFile);
    line('export_rss_growth_mb', round(rssMax - rss0), 50, res.status === 200 && rssMax - rss0 < 50, { status: res.status, bytes, seconds: round((performance.now() - e0) / 1000) });
    line('export_event_loop_stall_max_ms', exportStall.max_ms, 20, exportStall.max_ms <= 20, { p99_ms: exportStall.p99_ms });

    // Last: the invoice list aggregates every invoice ref of the merchant on each call, and the
    // server goes on computing a request the bench gave up on, so nothing is measured after it.
    const first = await timed(`${server.url}/api/backoffice/v1/invoices?${m}`, bo, 60_000);
    line('backoffice_invoices_first_ms', first.ms, 50, first.status === 200 && first.ms <= 50, { status: first.status, bytes: first.bytes, note: first.status === 0 ? 'gave up after 60 s' : undefined });
    if (first.status === 200 && first.ms < 1000) {
      const deepInvoices = await timed(`${server.url}/api/backoffice/v1/invoices?${m}&offset=${Math.floor(N * 0.5)}`, bo, 60_000);
      line('backoffice_invoices_deep_ms', deepInvoices.ms, 50, deepInvoices.status === 200 && deepInvoices.ms <= 50, { status: deepInvoices.status, bytes: deepInvoices.bytes });
    }
  } finally {
    await server?.stop(2_000);
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    note(err instanceof Error ? (err.stack ?? err.message) : String(err));
    process.exit(1);
  },
);
