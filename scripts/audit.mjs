#!/usr/bin/env node
// `npm run audit`: `npm audit`, failing on high or critical advisories in what ships: the
// production dependencies (the server's tree, `npm ci --omit=dev`) and the packages bundled into
// the browser pages (react, @tanstack/react-query, bwip-js, @zxing/… : development dependencies
// to npm, since vite bundles them at build time, but their code runs in every payer's and
// clerk's browser). The browser packages are found from the renderer's imports, with everything
// they depend on (package-lock.json). Advisories only in build and test tools are listed, not
// failed on. Where the registry cannot answer audits (a mirror or proxy without the advisory
// endpoint answers 405, or there is no network), it says so plainly and exits 0, so an offline
// build is not red for a check it could not run. docs/security.md § Dependencies.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** Package names the browser code imports (static and dynamic), from renderer/ and shared/. */
function browserRoots() {
  const names = new Set();
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.(ts|tsx)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) {
        for (const m of readFileSync(path, 'utf8').matchAll(/(?:from\s+|import\s*\(\s*)'([^'./][^']*)'/g)) {
          const spec = m[1];
          names.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]);
        }
      }
    }
  };
  for (const dir of ['renderer', 'shared']) walk(join(root, dir));
  return names;
}

/** The lock's packages: what the production tree holds, and everything the browser roots pull in. */
function shippedPackages() {
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'));
  const packages = lock.packages ?? {};
  const nameOf = (key) => key.slice(key.lastIndexOf('node_modules/') + 'node_modules/'.length);
  const production = new Set(Object.entries(packages).filter(([key, p]) => key && !p.dev).map(([key]) => nameOf(key)));
  const browser = new Set();
  const queue = [...browserRoots()];
  while (queue.length) {
    const name = queue.pop();
    if (browser.has(name)) continue;
    const entry = packages[`node_modules/${name}`];
    if (!entry) continue; // a Node built-in or a path alias
    browser.add(name);
    queue.push(...Object.keys(entry.dependencies ?? {}), ...Object.keys(entry.peerDependencies ?? {}));
  }
  return { production, browser };
}

if (process.argv.includes('--list')) {
  // What the audit covers: `npm run audit -- --list`.
  const { production, browser } = shippedPackages();
  process.stdout.write(`browser (${browser.size}): ${[...browser].sort().join(' ')}\nserver (${production.size}): ${[...production].sort().join(' ')}\n`);
  process.exit(0);
}

const run = spawnSync(npm, ['audit', '--json'], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
let report;
try {
  report = JSON.parse(run.stdout || 'null');
} catch {
  report = null;
}

const counts = report?.metadata?.vulnerabilities;
if (!counts) {
  const why =
    report?.statusCode !== undefined
      ? `the registry answered ${report.statusCode} to the audit request (${report.uri ?? 'advisories endpoint'})`
      : run.error
        ? `npm could not be run (${run.error.message})`
        : `npm audit gave no report (${(run.stderr || '').split('\n').find((l) => l.includes('error')) ?? `exit ${run.status}`})`;
  process.stdout.write(
    `npm run audit: NOT CHECKED: ${why}.\n` +
      'This registry offers no security advisories, so dependencies were not audited here. Run `npm run audit`\n' +
      'where registry.npmjs.org is reachable (CI, a developer machine) before a release.\n',
  );
  process.exit(0);
}

const { production, browser } = shippedPackages();
const serious = [];
const tooling = [];
for (const [name, v] of Object.entries(report.vulnerabilities ?? {})) {
  const where = production.has(name) ? 'server' : browser.has(name) ? 'browser' : null;
  const line = `  ${v.severity}: ${name} ${v.range ?? ''} [${where ?? 'build/test tools'}] (fix: ${v.fixAvailable ? 'available' : 'none yet'})`;
  if (where && (v.severity === 'high' || v.severity === 'critical')) serious.push(line);
  else if (!where) tooling.push(line);
}
const summary = ['critical', 'high', 'moderate', 'low', 'info'].map((k) => `${counts[k] ?? 0} ${k}`).join(', ');
const scope = `${production.size} server and ${browser.size} browser packages`;
if (serious.length > 0) {
  process.stdout.write(`${serious.join('\n')}\nnpm run audit: FAILED: high or critical advisories in what ships (${scope}); all packages: ${summary}.\n`);
  process.exit(1);
}
if (tooling.length) process.stdout.write(`build and test tools only (not shipped):\n${tooling.join('\n')}\n`);
process.stdout.write(`npm run audit: ok: nothing high or critical in what ships (${scope}); all packages: ${summary}.\n`);
