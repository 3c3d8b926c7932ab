import { readFileSync } from 'node:fs';

/**
 * Summarises a sampling heap profile (bench-fanout.ts FANOUT_HEAP, or DevTools' "Allocation
 * sampling"): bytes allocated per function (self), the heaviest first, and per call path of
 * `depth` frames. `npx tsx bench/diagnostics/heap-summary.ts FILE [top] [depth] [divisor]`: divisor divides the
 * bytes (e.g. the number of deliveries, for bytes per delivery).
 */
interface Node {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: Node[];
}
const [file, topArg, depthArg, divArg] = process.argv.slice(2);
if (!file) throw new Error('usage: heap-summary.ts FILE [top] [depth] [divisor]');
const { head } = JSON.parse(readFileSync(file, 'utf8')) as { head: Node };
const top = Number(topArg ?? 30);
const depth = Number(depthArg ?? 3);
const div = Number(divArg ?? 1);
const name = (n: Node) => `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.replace(/^.*\/(node_modules\/)?/, '')}:${n.callFrame.lineNumber + 1}`;
const self = new Map<string, number>();
const paths = new Map<string, number>();
let total = 0;
const walk = (n: Node, stack: string[]) => {
  const here = [...stack, name(n)];
  if (n.selfSize) {
    total += n.selfSize;
    self.set(here[here.length - 1]!, (self.get(here[here.length - 1]!) ?? 0) + n.selfSize);
    const key = here.slice(-depth).join(' < ');
    paths.set(key, (paths.get(key) ?? 0) + n.selfSize);
  }
  for (const c of n.children) walk(c, here);
};
walk(head, []);
const show = (title: string, m: Map<string, number>) => {
  process.stdout.write(`\n${title}\n`);
  for (const [k, v] of [...m].sort((a, b) => b[1] - a[1]).slice(0, top)) process.stdout.write(`${(v / div).toFixed(0).padStart(9)}  ${((100 * v) / total).toFixed(1).padStart(5)}%  ${k}\n`);
};
process.stdout.write(`${(total / div).toFixed(0)} bytes sampled${div !== 1 ? ` per ${div}` : ''}\n`);
show('bytes by function (self)', self);
show(`bytes by the last ${depth} frames`, paths);
