import { existsSync, openSync, readFileSync, readSync, closeSync, statSync, writeFileSync } from 'node:fs';
import { build } from '../server/app';
import { loadConfig } from '../server/config';
import { migrate, openDatabase } from '../server/db/database';
import { systemClock } from '../server/lib/clock';
import { randomIds } from '../server/lib/ids';
import { createStaff } from '../server/modules/auth/staff.service';
import { createIntegration } from '../server/modules/integrations/integrations.service';
import { seedVolume } from './volume-seed';

/**
 * Which b-trees a session create writes, and how many pages (issue 18: session_create p99 at a
 * million sessions against an empty database). In process, no network: the same measurement
 * on a loaded machine as on a quiet one.
 *
 *   tsx bench/create-pages.ts seed FILE --sessions N      seeds FILE as bench:volume does (kept)
 *   tsx bench/create-pages.ts probe FILE [--creates K] [--concurrency C]
 *
 * `probe` opens FILE with the server's pragmas, checkpoints the WAL to empty, turns automatic
 * checkpoints off, sends K `POST /api/v1/sessions` through `app.inject` C at a time (so they
 * group-commit as the bench's 10 connections do), then reads the WAL: frames per create, commits,
 * and per b-tree (dbstat) the frames and distinct pages; "per checkpoint" replays the WAL in
 * windows of WAL_AUTOCHECKPOINT_PAGES frames (what each automatic checkpoint would have copied).
 * `rchar` (/proc/self/io) is what SQLite read from the file and the WAL: its page-cache misses.
 * The probe's sessions stay in FILE (a few thousand next to N: alternate A/B runs on one file).
 */
const [cmd, file] = process.argv.slice(2);
const flag = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
if (!file || (cmd !== 'seed' && cmd !== 'probe')) throw new Error('usage: create-pages.ts seed|probe FILE [options]');
const metaFile = `${file}.json`;

async function seed(): Promise<void> {
  if (existsSync(file!)) throw new Error(`${file} exists`);
  const n = flag('sessions', 200_000);
  const opened = openDatabase(file!);
  await migrate(opened.db);
  const created = await createIntegration(opened.db, systemClock, randomIds, { merchantName: 'Volume Merchant' });
  const staff = await createStaff(opened.db, systemClock, randomIds, { username: 'volume_admin', password: 'volume bench staff password 2026', role: 'admin' });
  const endpoint = [`we_${randomIds.token('', 20)}`, created.integration_id, 'https://hooks.example.com/paydesk', `whsec_x`, 'disabled', 'bench', new Date().toISOString(), new Date().toISOString()];
  opened.sqlite.prepare('INSERT INTO webhook_endpoints (id, integration_id, url, secret, status, disabled_reason, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)').run(...endpoint);
  const branch = opened.sqlite.prepare('SELECT id FROM branches LIMIT 1').get() as { id: string };
  const counts = seedVolume({
    n, merchantId: created.merchant_id, integrationId: created.integration_id, staffId: staff.id, staffUsername: staff.username,
    sharedInvoice: Math.min(100_000, Math.floor(n / 10)), now: new Date(), sqlite: opened.sqlite, endpointId: endpoint[0]!, branchId: branch.id,
  });
  opened.sqlite.pragma('wal_checkpoint(TRUNCATE)');
  await opened.close();
  writeFileSync(metaFile, JSON.stringify({ api_key: created.api_key, merchant_id: created.merchant_id, counts }));
  console.log(JSON.stringify({ seeded: n, counts }));
}

function procIo(): Record<string, number> {
  const out: Record<string, number> = {};
  for (const l of readFileSync('/proc/self/io', 'utf8').trim().split('\n')) {
    const [k, v] = l.split(':');
    out[k!.trim()] = Number(v);
  }
  return out;
}

/** Frames of a WAL file: page number and whether the frame ends a commit. */
function readWal(path: string, pageSize: number): Array<{ pgno: number; commit: boolean }> {
  const frames: Array<{ pgno: number; commit: boolean }> = [];
  if (!existsSync(path)) return frames;
  const fd = openSync(path, 'r');
  const size = statSync(path).size;
  const header = Buffer.alloc(32);
  readSync(fd, header, 0, 32, 0);
  const salt1 = header.readUInt32BE(16);
  const fh = Buffer.alloc(24);
  for (let off = 32; off + 24 + pageSize <= size; off += 24 + pageSize) {
    readSync(fd, fh, 0, 24, off);
    if (fh.readUInt32BE(8) !== salt1) break;
    frames.push({ pgno: fh.readUInt32BE(0), commit: fh.readUInt32BE(4) !== 0 });
  }
  closeSync(fd);
  return frames;
}

async function probe(): Promise<void> {
  const creates = flag('creates', 2000);
  const concurrency = flag('concurrency', 10);
  const window = flag('window', 300);
  const meta = JSON.parse(readFileSync(metaFile, 'utf8')) as { api_key: string };
  const opened = openDatabase(file!);
  await migrate(opened.db);
  const { sqlite } = opened;
  const cacheKiB = flag('cache-kib', 0);
  if (cacheKiB) sqlite.pragma(`cache_size = -${cacheKiB}`);
  const config = loadConfig({ ...process.env, DATA_DIR: '/nonexistent-create-pages', RATE_LIMIT_PER_MIN: '0' });
  // --random-ids: session and history ids drawn as before issue 18's change (random base62, UUIDv4), for an A/B on one file.
  const randomOnly = process.argv.includes('--random-ids');
  const ids = randomOnly ? { ...randomIds, timeToken: (p: string, l: number) => randomIds.token(p, l), timeUuid: () => randomIds.uuid() } : randomIds;
  const app = await build({ db: opened.db, clock: systemClock, ids, config, logger: false, backgroundJobs: false });
  const headers = { authorization: `Bearer ${meta.api_key}`, 'content-type': 'application/json' };
  const payload = JSON.stringify({ amount_minor: 12_500, invoice_ref: 'VOL-NEW', customer: { name: 'Ama Mensah' } });
  const latencies: number[] = [];
  const post = async () => {
    const l0 = performance.now();
    const r = await app.inject({ method: 'POST', url: '/api/v1/sessions', headers, payload });
    latencies.push(performance.now() - l0);
    if (r.statusCode !== 201) throw new Error(`create: ${r.statusCode} ${r.body}`);
  };
  // Warm up: the statements compiled, the hot pages read, as in a running server.
  for (let i = 0; i < 50; i++) await Promise.all(Array.from({ length: concurrency }, post));
  sqlite.pragma('wal_checkpoint(TRUNCATE)');
  // --latency: automatic checkpoints left on (as the server runs), only the creates' latency reported (the WAL is reset as it goes).
  const latencyOnly = process.argv.includes('--latency');
  if (!latencyOnly) sqlite.pragma('wal_autocheckpoint = 0');
  latencies.length = 0;
  const pageSize = sqlite.pragma('page_size', { simple: true }) as number;
  const io0 = procIo();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let left = creates;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (left-- > 0) await post();
    }),
  );
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const io1 = procIo();
  if (latencyOnly) {
    latencies.sort((a, b) => a - b);
    const at = (q: number) => Math.round(latencies[Math.floor(q * (latencies.length - 1))]! * 100) / 100;
    console.log(JSON.stringify({ file: file!.split('/').at(-1), ids: randomOnly ? 'random' : 'time-ordered', creates, p50_ms: at(0.5), p99_ms: at(0.99), max_ms: at(1), cpu_us_per_create: Math.round((cpu.user + cpu.system) / creates), wall_ms: Math.round(ms) }));
    await app.close();
    await opened.close();
    return;
  }
  const frames = readWal(`${file}-wal`, pageSize);
  // Owner of each page written (dbstat reads only the b-trees named here: every b-tree in the file would be every page).
  const pages = new Set(frames.map((f) => f.pgno));
  const owner = new Map<number, string>();
  const names = sqlite.prepare("SELECT name FROM sqlite_schema WHERE rootpage > 0 AND (tbl_name IN ('checkout_sessions','session_history','invoice_summary_deltas','idempotency_keys','api_keys'))").pluck().all() as string[];
  const byName = sqlite.prepare('SELECT pageno, pagetype, ncell FROM dbstat WHERE name = ?');
  const kind = new Map<number, string>();
  for (const name of names) for (const r of byName.iterate(name) as Iterable<{ pageno: number; pagetype: string; ncell: number }>) if (pages.has(r.pageno)) { owner.set(r.pageno, name); kind.set(r.pageno, `${r.pagetype[0]}${r.ncell}`); }
  const perTree = new Map<string, { frames: number; pages: Set<number> }>();
  for (const f of frames) {
    const name = owner.get(f.pgno) ?? (f.pgno === 1 ? 'page 1 (header)' : 'other');
    const t = perTree.get(name) ?? { frames: 0, pages: new Set<number>() };
    t.frames++;
    t.pages.add(f.pgno);
    perTree.set(name, t);
  }
  // Replay automatic checkpoints: a commit that leaves ≥ `window` frames in the WAL checkpoints it.
  const checkpoints: number[] = [];
  let chunk = new Set<number>();
  let inChunk = 0;
  for (const f of frames) {
    chunk.add(f.pgno);
    inChunk++;
    if (f.commit && inChunk >= window) {
      checkpoints.push(chunk.size);
      chunk = new Set();
      inChunk = 0;
    }
  }
  const commits = frames.filter((f) => f.commit).length;
  const round = (n: number) => Math.round(n * 100) / 100;
  const trees = [...perTree].sort((a, b) => b[1].frames - a[1].frames).map(([name, t]) => ({ name, frames_per_create: round(t.frames / creates), distinct_pages: t.pages.size }));
  console.log(
    JSON.stringify({
      file: file!.split('/').at(-1),
      ids: randomOnly ? 'random' : 'time-ordered',
      creates,
      commits,
      wal_frames_per_create: round(frames.length / creates),
      wal_frames_per_commit: round(frames.length / Math.max(commits, 1)),
      distinct_pages: pages.size,
      checkpoint_pages_mean: round(checkpoints.reduce((a, b) => a + b, 0) / Math.max(checkpoints.length, 1)),
      checkpoint_pages_per_create: round(checkpoints.reduce((a, b) => a + b, 0) / creates),
      checkpoints: checkpoints.length,
      read_kib_per_create: round((io1.rchar! - io0.rchar!) / 1024 / creates),
      cpu_us_per_create: Math.round(((cpu.user + cpu.system) / creates)),
      wall_ms: Math.round(ms),
    }),
  );
  for (const t of trees) console.log(JSON.stringify(t));
  const dump = flag('dump-commit', -1);
  if (dump >= 0) {
    let c = 0;
    let list: string[] = [];
    for (const f of frames) {
      list.push(`${owner.get(f.pgno) ?? 'other'}:${f.pgno}:${kind.get(f.pgno)}`);
      if (f.commit) {
        if (c === dump || c === dump + 1) console.log(`commit ${c}: ${list.join(' ')}`);
        c++;
        list = [];
      }
    }
  }
  await app.close();
  sqlite.pragma('wal_checkpoint(TRUNCATE)');
  await opened.close();
}

await (cmd === 'seed' ? seed() : probe());
