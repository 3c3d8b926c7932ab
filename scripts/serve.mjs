#!/usr/bin/env node
// Runs a Paydesk entry point (`server/main.ts` for `npm run serve`, `server/cli/admin.ts` for
// `npm run admin`): the prebuilt bundle in out/server/ when it is newer than every source file
// it was built from (with its V8 code cache: run-bundle.mjs), otherwise the TypeScript source
// through tsx (slower to start, always current). Runs in this same process, so signals and exit
// codes are the server's own.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { runBundle } from './run-bundle.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const ENTRIES = { serve: ['server/main.ts', 'out/server/main.cjs'], admin: ['server/cli/admin.ts', 'out/server/admin.cjs'] };
const [source, bundle] = ENTRIES[process.argv[2] ?? 'serve'] ?? ENTRIES.serve;
process.argv.splice(2, 1); // the entry point sees its own arguments only

/** Newest modification time of the files a bundle is made from. */
function newestSource() {
  let newest = 0;
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.(ts|mts|js|mjs|json)$/.test(entry.name)) newest = Math.max(newest, statSync(path).mtimeMs);
    }
  };
  for (const dir of ['server', 'shared']) walk(join(root, dir));
  for (const file of ['package-lock.json', 'scripts/build-server.mjs']) newest = Math.max(newest, statSync(join(root, file)).mtimeMs);
  return newest;
}

const bundlePath = join(root, bundle);
// A production tree (the Containerfile's, docs/deployment.md) has the bundles and no sources.
const hasSources = existsSync(join(root, 'server'));
if (existsSync(bundlePath) && (!hasSources || statSync(bundlePath).mtimeMs >= newestSource())) {
  runBundle(bundlePath);
} else {
  if (existsSync(bundlePath)) process.stderr.write('paydesk: sources changed since the last build; running from source (npm run build restores the fast start)\n');
  // tsx is a development dependency: a tree installed with --omit=dev runs the bundle only.
  const tsx = await import('tsx/esm/api').catch(() => null);
  if (!tsx) {
    process.stderr.write(`paydesk: ${bundle} is missing or older than the sources, and tsx (a development dependency) is not installed: run npm run build\n`);
    process.exit(1);
  }
  const { register } = tsx;
  register();
  await import(pathToFileURL(join(root, source)).href);
}
