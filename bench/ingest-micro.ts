import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from '../server/app';
import { loadConfig } from '../server/config';
import { connectDatabase, migrate } from '../server/db/database';
import { systemClock } from '../server/lib/clock';
import { randomIds } from '../server/lib/ids';
import { createIntegration } from '../server/modules/integrations/integrations.service';
import { ownAddresses } from '../server/modules/webhooks/url-policy';
import { createOutbox } from '../server/modules/webhooks/outbox';

/**
 * In-process A/B of the invoice line ingest (issue 16): the bench's request (a new invoice of 100
 * lines, JSON, no Idempotency-Key) through `inject`, CPU µs per request from process.cpuUsage.
 * `npx tsx bench/ingest-micro.ts [requests] [rounds]` (DATABASE_URL for PostgreSQL).
 */
const N = Number(process.argv[2] ?? 1500);
const ROUNDS = Number(process.argv[3] ?? 3);
// MICRO_STATEMENTS=1: SQLite CPU time per statement text (better-sqlite3's run/all/get), per request.
const perStatement = new Map<string, { n: number; ns: bigint }>();
if (process.env.MICRO_STATEMENTS) {
  const { default: SQLite } = await import('better-sqlite3');
  const probe = new SQLite(':memory:');
  const stmtProto = Object.getPrototypeOf(probe.prepare('SELECT 1')) as Record<string, (...a: unknown[]) => unknown>;
  probe.close();
  for (const fn of ['run', 'all', 'get', 'iterate'] as const) {
    const orig = stmtProto[fn]!;
    stmtProto[fn] = function (this: { source: string }, ...args: unknown[]) {
      const t = process.cpuUsage();
      try {
        return orig.apply(this, args);
      } finally {
        const key = this.source.replace(/\s+/g, ' ').slice(0, 110);
        const e = perStatement.get(key) ?? { n: 0, ns: 0n };
        e.n++;
        const d = process.cpuUsage(t);
        e.ns += BigInt((d.user + d.system) * 1000);
        perStatement.set(key, e);
      }
    };
  }
}
const dir = mkdtempSync(join(tmpdir(), 'paydesk-ingest-micro-'));
const config = loadConfig({ DATA_DIR: dir, RATE_LIMIT_PER_MIN: '0', PUBLIC_BASE_URL: 'http://paydesk.test', ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}) });
const database = connectDatabase(config);
await migrate(database.db);
const clock = systemClock;
const app = await build({ db: database.db, clock, ids: randomIds, config, logger: false, outbox: createOutbox() });
await app.ready();
const m = await createIntegration(database.db, clock, randomIds, { merchantName: 'Micro', ownAddresses: ownAddresses(config) });
const auth = { authorization: `Bearer ${m.api_key}`, 'content-type': 'application/json' };
const codes = Array.from({ length: 100 }, (_, i) => `SVC${String(i).padStart(3, '0')}`);
const sync = await app.inject({ method: 'POST', url: '/api/v1/revenue-lines', headers: auth, payload: JSON.stringify({ lines: codes.map((code) => ({ code, name: `Service ${code}` })) }) });
if (sync.statusCode !== 200) throw new Error(sync.body);
const lines = codes.map((code, i) => ({ code, amount_minor: 100 + i }));
let n = 0;
const runId = Date.now().toString(36);
async function one(): Promise<void> {
  const res = await app.inject({ method: 'POST', url: '/api/v1/invoice-lines', headers: auth, payload: JSON.stringify({ invoice_ref: `INV-L-${runId}-${++n}`, lines }) });
  if (res.statusCode !== 200) throw new Error(`${res.statusCode} ${res.body}`);
}
for (let i = 0; i < 300; i++) await one(); // warm-up
for (let r = 0; r < ROUNDS; r++) {
  perStatement.clear();
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < N; i++) await one();
  const c = process.cpuUsage(c0);
  const ms = performance.now() - t0;
  process.stdout.write(`${JSON.stringify({ round: r, requests: N, cpu_us_per_req: Math.round((c.user + c.system) / N), wall_us_per_req: Math.round((ms * 1000) / N) })}\n`);
}
for (const [sql, e] of [...perStatement].sort((a, b) => Number(b[1].ns - a[1].ns))) {
  process.stdout.write(`${String(Math.round(Number(e.ns) / 1000 / N)).padStart(6)} µs/req ${String(e.n / N).padStart(5)}x  ${sql}\n`);
}
await app.close();
await database.db.destroy();
rmSync(dir, { recursive: true, force: true });
