import { readFileSync } from 'node:fs';

/**
 * Summarises a `node --cpu-prof` profile: self time per function and per package/file, the
 * heaviest first. `npx tsx bench/diagnostics/profile-summary.ts FILE.cpuprofile [top] [FROM_US TO_US]`
 *
 * FROM_US TO_US: only the samples taken in that span of the monotonic clock, in µs (the clock
 * V8 stamps samples with, `process.hrtime` in any process on the machine): e.g. the window
 * `npm run bench` prints for webhook_fanout, from a server run with
 * `BENCH_SERVER_NODE_ARGS="--cpu-prof --cpu-prof-dir=DIR"`.
 *
 * Also the inclusive time of each function (its samples and its callees', each sample counted
 * once per function however deep the recursion): where a path's time goes, callees included.
 */
interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount: number;
  children?: number[];
}
const [file, topArg, fromArg, toArg] = process.argv.slice(2);
if (!file) throw new Error('usage: profile-summary.ts FILE.cpuprofile [top] [FROM_US TO_US]');
const profile = JSON.parse(readFileSync(file, 'utf8')) as { nodes: Node[]; samples: number[]; startTime: number; timeDeltas: number[] };
const top = Number(topArg ?? 30);
if (fromArg !== undefined) {
  // Recount hitCount from the samples stamped inside the window.
  const from = Number(fromArg);
  const to = Number(toArg ?? Infinity);
  const hits = new Map<number, number>();
  let t = profile.startTime;
  let kept = 0;
  profile.samples.forEach((id, i) => {
    t += profile.timeDeltas[i] ?? 0;
    if (t < from || t > to) return;
    hits.set(id, (hits.get(id) ?? 0) + 1);
    kept++;
  });
  for (const n of profile.nodes) n.hitCount = hits.get(n.id) ?? 0;
  profile.samples = profile.samples.slice(0, kept);
  process.stdout.write(`${kept} samples in ${((to - from) / 1000).toFixed(0)} ms\n`);
}
const total = profile.samples.length;
const byFn = new Map<string, number>();
const byPkg = new Map<string, number>();
const where = (url: string) => {
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (m?.[1]) return m[1];
  if (url.includes('/work/')) return url.replace(/^.*\/work\/[^/]+\//, '');
  return url || '(native)';
};
for (const n of profile.nodes) {
  if (!n.hitCount) continue;
  const fn = `${n.callFrame.functionName || '(anon)'} ${where(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;
  byFn.set(fn, (byFn.get(fn) ?? 0) + n.hitCount);
  const pkg = where(n.callFrame.url);
  byPkg.set(pkg, (byPkg.get(pkg) ?? 0) + n.hitCount);
}
const show = (title: string, m: Map<string, number>) => {
  process.stdout.write(`\n${title} (of ${total} samples)\n`);
  for (const [k, v] of [...m].sort((a, b) => b[1] - a[1]).slice(0, top)) process.stdout.write(`${((100 * v) / total).toFixed(1).padStart(5)}%  ${k}\n`);
};
show('self time by package / file', byPkg);
show('self time by function', byFn);

// Inclusive: every function on the stack of a sample, once per sample.
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const nodeById = new Map(profile.nodes.map((n) => [n.id, n]));
const inclusive = new Map<string, number>();
for (const n of profile.nodes) {
  if (!n.hitCount) continue;
  const seen = new Set<string>();
  for (let id: number | undefined = n.id; id !== undefined; id = parent.get(id)) {
    const f = nodeById.get(id)!.callFrame;
    seen.add(`${f.functionName || '(anon)'} ${where(f.url)}:${f.lineNumber + 1}`);
  }
  for (const k of seen) inclusive.set(k, (inclusive.get(k) ?? 0) + n.hitCount);
}
show('inclusive time by function', inclusive);
