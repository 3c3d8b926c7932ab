import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { migrate, openDatabase } from '../server/db/database';
import { applyTransition } from '../server/domain/session-transitions';
import { systemClock } from '../server/lib/clock';
import { randomIds } from '../server/lib/ids';
import { createIntegration } from '../server/modules/integrations/integrations.service';
import { createDispatcher } from '../server/modules/webhooks/dispatcher';
import { createOutbox } from '../server/modules/webhooks/outbox';
import { startWalCount, walPagesByTree } from './wal-pages';
import { startReceiver } from './bench-receiver';
import { nearestRank } from './quantile';

/**
 * The `webhook_fanout` benchmark scenario, for bench/run.ts:
 *
 *   import { webhookFanoutScenario } from './bench-fanout';
 *   console.log(JSON.stringify(await webhookFanoutScenario({ events: 5000 })));
 *
 * In a fresh temporary database it records `events` terminal transitions through the real
 * domain layer (each writes its event and, through the outbox hook, its delivery row), then
 * starts a dispatcher with production settings against a local receiver on 127.0.0.1 (its
 * own Node process, bench/receiver-process.mjs, as a merchant's receiver would be, answering 200 at once) and
 * times how long it takes until every delivery has succeeded. Prints the bench's JSON shape (docs/performance.md):
 * `requests` = deliveries, `rps` = deliveries per second, `p50_ms` / `p99_ms` = attempt
 * latency as the dispatcher logged it, `errors` = attempts that did not succeed.
 * Its target is in bench/bench-targets.ts (≥ 4,000 events/s). FANOUT_PROFILE=FILE writes a CPU profile of the dispatch phase.
 */
export interface FanoutResult {
  scenario: 'webhook_fanout';
  requests: number;
  rps: number;
  p50_ms: number;
  p99_ms: number;
  errors: number;
}

/**
 * FANOUT_PROFILE=FILE: a CPU profile (node:inspector) of the dispatch phase alone, not the
 * seeding; summarise it with bench/diagnostics/profile-summary.ts.
 */
async function startProfile(file: string): Promise<() => Promise<void>> {
  const { Session } = await import('node:inspector/promises');
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
  return async () => {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(file, JSON.stringify(profile));
    session.disconnect();
  };
}

/**
 * FANOUT_HEAP=FILE: a sampling heap profile (every 4 KiB allocated) of the dispatch phase, the
 * objects the young and old collections freed included: where a delivery allocates (load
 * it in Chrome DevTools' Memory tab, or summarise it with bench/diagnostics/heap-summary.ts).
 */
async function startHeapSampling(file: string): Promise<() => Promise<void>> {
  const { Session } = await import('node:inspector/promises');
  const session = new Session();
  session.connect();
  await session.post('HeapProfiler.startSampling', { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true } as never);
  return async () => {
    const { profile } = await session.post('HeapProfiler.stopSampling');
    writeFileSync(file, JSON.stringify(profile));
    session.disconnect();
  };
}

/** This process's I/O counters (Linux /proc/self/io: wchar = bytes written, write_bytes = to storage), {} elsewhere. */
function ioCounters(): Record<string, number> {
  try {
    return Object.fromEntries(readFileSync('/proc/self/io', 'utf8').trim().split('\n').map((l) => l.split(': ')).map(([k, v]) => [k!, Number(v)]));
  } catch {
    return {};
  }
}

export async function webhookFanoutScenario(opts: { events?: number; concurrency?: number; timeoutMs?: number } = {}): Promise<FanoutResult> {
  const events = opts.events ?? 5000;
  const dir = mkdtempSync(join(tmpdir(), 'paydesk-bench-webhooks-'));
  const database = openDatabase(join(dir, 'paydesk.sqlite'));
  // npm run bench's receiver (its own process), opened at once: every POST answered 200.
  const receiver = await startReceiver();
  await receiver.open();
  try {
    const db = database.db;
    await migrate(db);
    const outbox = createOutbox();
    const m = await createIntegration(db, systemClock, randomIds, { merchantName: 'Bench Webhooks', webhookUrl: receiver.url });
    const now = new Date();
    const iso = now.toISOString();
    const expires = new Date(now.getTime() + 3600_000).toISOString();
    const deps = { clock: systemClock, ids: randomIds, outbox };
    for (let i = 0; i < events; i += 250) {
      await db.transaction().execute(async (trx) => {
        for (let j = i; j < Math.min(events, i + 250); j++) {
          const id = `cs_bench_${j}`;
          await trx
            .insertInto('checkout_sessions')
            .values({
              id,
              merchant_id: m.merchant_id,
              integration_id: m.integration_id,
              status: 'open',
              amount_minor: 1000 + j,
              currency: 'GHS',
              invoice_ref: `INV-BENCH-${j}`,
              description: null,
              customer_name: null,
              customer_email: null,
              callback_url: null,
              metadata: '{}',
              paid_rail: null,
              expires_at: expires,
              created_at: iso,
              updated_at: iso,
              finalized_at: null,
            })
            .execute();
          await applyTransition(trx, deps, id, { kind: 'payment_confirmed', rail: 'card', cause: 'benchmark' });
        }
      });
    }
    const dispatcher = createDispatcher({ db, clock: systemClock, outbox, retryDelaysS: [1, 1, 1], ...(opts.concurrency ? { concurrency: opts.concurrency } : {}) });
    if (process.env.FANOUT_WAL) startWalCount(database.sqlite);
    const prof = process.env.FANOUT_PROFILE ? await startProfile(process.env.FANOUT_PROFILE) : null;
    const heap = process.env.FANOUT_HEAP ? await startHeapSampling(process.env.FANOUT_HEAP) : null;
    const io0 = ioCounters();
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    await dispatcher.start();
    const deadline = Date.now() + (opts.timeoutMs ?? 120_000);
    for (;;) {
      await dispatcher.idle();
      const left = await db.selectFrom('webhook_deliveries').select((eb) => eb.fn.countAll<number>().as('n')).where('status', '!=', 'succeeded').executeTakeFirstOrThrow();
      if (Number(left.n) === 0 || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const seconds = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    await prof?.();
    await heap?.();
    const io1 = ioCounters();
    process.stderr.write(`webhook_fanout: io per delivery: ${Object.keys(io1).map((k) => `${k} ${((io1[k]! - io0[k]!) / events).toFixed(1)}`).join(', ')}\n`);
    // CPU the dispatcher spent per delivery: on a loaded machine, the capacity it would have.
    process.stderr.write(`webhook_fanout: ${((cpu.user + cpu.system) / 1000 / events).toFixed(3)} ms CPU per delivery in the dispatcher process\n`);
    if (process.env.FANOUT_WAL) {
      const w = walPagesByTree(database.sqlite, join(dir, 'paydesk.sqlite'));
      const per = Object.entries(w.byTree).sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${(v / events).toFixed(2)}`).join(', ');
      process.stderr.write(`webhook_fanout: WAL frames per delivery ${(w.frames / events).toFixed(2)} (commits ${w.commits}): ${per}\n`);
    }
    await dispatcher.stop();
    const attempts = await db.selectFrom('webhook_delivery_attempts').select(['latency_ms', 'outcome']).execute();
    const delivered = attempts.filter((a) => a.outcome === 'succeeded').length;
    const latencies = attempts.map((a) => a.latency_ms).sort((a, b) => a - b);
    return {
      scenario: 'webhook_fanout',
      requests: delivered,
      rps: Math.round(delivered / seconds),
      p50_ms: nearestRank(latencies, 0.5),
      p99_ms: nearestRank(latencies, 0.99),
      errors: attempts.length - delivered,
    };
  } finally {
    receiver.close();
    await database.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

// `npx tsx bench/bench-fanout.ts [events]`: run the scenario alone.
if (process.argv[1] && /bench-fanout\.ts$/.test(process.argv[1])) {
  webhookFanoutScenario({ events: Number(process.argv[2] ?? 5000) }).then(
    (r) => process.stdout.write(`${JSON.stringify(r)}\n`),
    (err: unknown) => {
      process.stderr.write(`webhook_fanout failed: ${(err as Error).message}\n`);
      process.exit(1);
    },
  );
}
