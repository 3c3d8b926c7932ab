#!/usr/bin/env node
// `npm run lint`: the server's modules (server/modules/<area>/) depend on each other one way
// only. Every import between two modules is an edge from the importing module to the imported
// one, type-only imports and re-exports included (each names what one module needs of another);
// a cycle among modules, two that import each other or a longer loop, fails, naming each edge
// with the file and line that makes it. madge (also in `npm run lint`) checks cycles between
// files; this checks them between modules, which a loop through index.ts files can hide from it.
// Usage: node scripts/module-cycles.mjs [modules folder] (default server/modules).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const ts = createRequire(join(root, 'package.json'))('typescript');

const modulesDir = resolve(process.argv[2] ?? join(root, 'server', 'modules'));
const SOURCE = /\.(?:[cm]?[jt]s|tsx)$/;

function filesOf(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : filesOf(path);
    return SOURCE.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** A path as printed: from the repository's root when inside it. */
const shown = (path) => (relative(root, path).startsWith('..') ? path : relative(root, path) || '.');

/** The module a resolved import lies in (its first folder under modulesDir: `../auth` is auth), or null outside them. */
function moduleOf(path) {
  const rel = relative(modulesDir, path);
  return rel === '' || rel.startsWith('..') || isAbsolute(rel) ? null : rel.split(sep)[0];
}

const modules = readdirSync(modulesDir).filter((name) => statSync(join(modulesDir, name)).isDirectory()).sort();
/** from → to → where: the first import (file:line) that makes the edge. */
const edges = new Map(modules.map((m) => [m, new Map()]));

for (const m of modules) {
  for (const file of filesOf(join(modulesDir, m)).sort()) {
    const text = readFileSync(file, 'utf8');
    const { importedFiles } = ts.preProcessFile(text, true, true);
    for (const { fileName, pos } of importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const target = moduleOf(resolve(dirname(file), fileName));
      if (target === null || target === m || !edges.has(target)) continue; // its own files, or not a module
      const out = edges.get(m);
      if (!out.has(target)) {
        const line = text.slice(0, pos).split('\n').length;
        out.set(target, `${shown(file)}:${line} imports '${fileName}'`);
      }
    }
  }
}

// Tarjan's strongly connected components: every component of more than one module is a cycle.
let counter = 0;
const index = new Map();
const low = new Map();
const stack = [];
const onStack = new Set();
const components = [];
function connect(v) {
  index.set(v, counter);
  low.set(v, counter++);
  stack.push(v);
  onStack.add(v);
  for (const w of edges.get(v).keys()) {
    if (!index.has(w)) {
      connect(w);
      low.set(v, Math.min(low.get(v), low.get(w)));
    } else if (onStack.has(w)) {
      low.set(v, Math.min(low.get(v), index.get(w)));
    }
  }
  if (low.get(v) === index.get(v)) {
    const component = [];
    let w;
    do {
      w = stack.pop();
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1) components.push(component.sort());
  }
}
for (const m of modules) if (!index.has(m)) connect(m);

/** A shortest loop from `start` back to it within `members`, as the list of its modules. */
function loopFrom(start, members) {
  const back = new Map([[start, null]]);
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift();
    for (const w of [...edges.get(v).keys()].sort()) {
      if (!members.has(w)) continue;
      if (w === start) {
        const path = [v];
        for (let p = back.get(v); p !== null; p = back.get(p)) path.unshift(p);
        return [...path, start];
      }
      if (!back.has(w)) {
        back.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start];
}

const count = [...edges.values()].reduce((n, out) => n + out.size, 0);
if (components.length === 0) {
  console.log(`module-cycles: ${modules.length} modules, ${count} dependencies between them, all one way`);
  process.exit(0);
}
console.error(`module-cycles: modules that depend on each other (${shown(modulesDir)}):`);
for (const component of components) {
  // Each pair that imports each other, with both imports; a loop of three or more with none, whole.
  const pairs = component.flatMap((a) => component.filter((b) => a < b && edges.get(a).has(b) && edges.get(b).has(a)).map((b) => [a, b, a]));
  for (const loop of pairs.length > 0 ? pairs : [loopFrom(component[0], new Set(component))]) {
    console.error(`\n  ${loop.join(' → ')}`);
    for (let i = 0; i + 1 < loop.length; i++) console.error(`    ${loop[i]} → ${loop[i + 1]}: ${edges.get(loop[i]).get(loop[i + 1])}`);
  }
  if (component.length > 2) console.error(`  (these modules are all in loops with each other: ${component.join(', ')})`);
}
console.error(
  '\nMake the dependency run one way: move the shared piece to the lower module (or to server/domain/, server/http/, server/lib/),' +
    ' or pass it in at wiring time (server/app.ts, server/routes.ts, the Deps). docs/architecture.md, "Layers".',
);
process.exit(1);
