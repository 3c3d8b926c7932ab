#!/usr/bin/env node
// Bundles the server and the operator CLI into plain ES modules (out/server/*.mjs) so that
// `npm run serve` starts with plain node instead of compiling TypeScript through tsx at every
// start: about half the cold start and a third less memory (docs/performance.md).
// Packages stay external and load from node_modules; `npm run build` (and so `npm ci`) runs this.
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

await build({
  // report-worker: the worker thread exports and reports run in (server/modules/reports/),
  // found beside main.mjs (and from the desktop app's out/main/) by report-runner.ts.
  entryPoints: {
    main: join(root, 'server/main.ts'),
    admin: join(root, 'server/cli/admin.ts'),
    'report-worker': join(root, 'server/modules/reports/report-worker.ts'),
  },
  outdir: join(root, 'out/server-old'),
  outExtension: { '.js': '.mjs' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20.19',
  packages: 'external',
  sourcemap: 'linked',
  logLevel: 'warning',
});
process.stdout.write('built out/server/main.mjs, admin.mjs and report-worker.mjs\n');
