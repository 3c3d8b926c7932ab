#!/usr/bin/env node
// Bundles the server and the operator CLI into CommonJS files (out/server/main.cjs, admin.cjs) so
// that `npm run serve` starts with plain node instead of compiling TypeScript through tsx at every
// start: about half the cold start and a third less memory (docs/performance.md).
// Packages are bundled too, but for the few that cannot be: a native addon, and the packages that
// read files beside their own modules (Swagger UI's static assets, @fastify/swagger's package.json);
// resolving and compiling ~400 CommonJS files from node_modules one by one was ~450 ms of a 1.5 s
// cold start. CommonJS rather than an ES module because only a script can be given a
// V8 code cache on Node 20 (vm.Script's cachedData; scripts/run-bundle.mjs): after bundling, V8
// parsing and compiling the 4 MB bundle was the largest part of a start left. This script then
// makes each entry's cache by running it once (trainCodeCache). `npm run build` (and so `npm ci`)
// runs this.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { SERVER_NODE_FLAGS } from './server-node-flags.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The commit built, fixed into the bundles (server/version.ts); empty outside a git checkout. */
function builtCommit() {
  try {
    return execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return process.env.PAYDESK_COMMIT ?? '';
  }
}

/**
 * Loaded from node_modules at run time: better-sqlite3 (a native addon), @fastify/swagger and
 * @fastify/swagger-ui (they read their package.json and static files relative to their own
 * directory), pg-native (pg's optional native driver, not installed). pg itself is required at run time by
 * server/db/postgres.ts, only when a PostgreSQL database is opened; undici and ioredis are
 * bundled but evaluated on first use (a dynamic import).
 */
const EXTERNAL = ['better-sqlite3', '@fastify/swagger', '@fastify/swagger-ui', 'pg-native'];

/** What both builds share: bundles for this Node, beside each other in out/server. */
const common = {
  outdir: join(root, 'out/server'),
  bundle: true,
  platform: 'node',
  target: 'node20.19',
  sourcemap: 'linked',
  logLevel: 'warning',
};

await build({
  ...common,
  entryPoints: {
    main: join(root, 'server/main.ts'),
    admin: join(root, 'server/cli/admin.ts'),
  },
  external: EXTERNAL,
  format: 'cjs',
  outExtension: { '.js': '.cjs' },
  // The sources are ES modules: the three that name their own file (import.meta.url: the report
  // worker beside the bundle, out/renderer, pg's require) get the bundle's file URL.
  define: { 'import.meta.url': '__paydeskImportMetaUrl', 'process.env.PAYDESK_BUILD_COMMIT': JSON.stringify(builtCommit()) },
  banner: { js: "const __paydeskImportMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
  // Whitespace and syntax only (names are kept, so stack traces read as the source does): a third
  // less for V8 to read and parse at every start. The source map maps positions back.
  minifyWhitespace: true,
  minifySyntax: true,
});
// The report worker keeps its packages external, as before: it starts on demand, so bundling them
// saved nothing a user waits for, and with them bundled the server's RSS peaked 75 MB higher in an
// export (220 against 145 MB, replaying an export on a kept 300,000-session database), which
// put bench:volume's export RSS growth (< 50 MB) at 56.
await build({
  ...common,
  entryPoints: { 'report-worker': join(root, 'server/modules/reports/report-worker.ts') },
  format: 'esm',
  outExtension: { '.js': '.mjs' },
  // report-worker: the worker thread exports and reports run in (server/modules/reports/),
  // found beside main.cjs (and from the desktop app's out/main/) by report-runner.ts.
  packages: 'external',
  // A module's route plugins load when the server registers them (server/lib/lazy-plugin.ts),
  // which the worker never does: their files stay out of its bundle. In it (the modules whose rows
  // it reads export them), the bundle was three times the size, loaded the packages they import,
  // and the worker started 3 MB larger.
  plugins: [
    {
      name: 'no-route-plugins',
      setup(b) {
        b.onResolve({ filter: /\.routes$/ }, (args) => (args.kind === 'dynamic-import' ? { path: args.path, external: true } : undefined));
      },
    },
  ],
});

/**
 * Makes `out/server/<entry>.cjs.cache` by running the entry once through scripts/serve.mjs with
 * PAYDESK_CODE_CACHE=write (run-bundle.mjs writes the cache as the process exits, with every
 * function compiled by then): the server on a throwaway SQLite DATA_DIR and a free loopback port,
 * asked for /healthz and then stopped by SIGTERM; the CLI asked for its usage. With the Node flags
 * each runs with (V8 rejects a cache made under other flags). Nothing of the caller's environment
 * that names a database or Redis is passed on. A failure only costs the first start its speed (a
 * previous build's cache left beside the bundle is never used: run-bundle.mjs checks its hash):
 * it is reported, and the build goes on.
 */
async function trainCodeCache(entry, args, nodeFlags) {
  const dataDir = mkdtempSync(join(tmpdir(), 'paydesk-code-cache-'));
  const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? dataDir, DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'warn', PAYDESK_CODE_CACHE: 'write' };
  const child = spawn(process.execPath, [...nodeFlags, join(root, 'scripts/serve.mjs'), entry, ...args], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let stopping = false;
  child.stdout.on('data', (c) => {
    out += c;
    const url = /paydesk listening on (http:\/\/\S+)/.exec(out)?.[1];
    if (url && !stopping) {
      stopping = true;
      // Stopped whether /healthz answered or not (a failed fetch must not end this build).
      fetch(`${url}/healthz`)
        .catch(() => undefined)
        .finally(() => child.kill('SIGTERM'));
    }
  });
  child.stderr.on('data', (c) => (out += c));
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  const code = await new Promise((resolve) => child.once('exit', resolve));
  clearTimeout(timer);
  rmSync(dataDir, { recursive: true, force: true });
  if (code !== 0) process.stderr.write(`build-server: no code cache for ${entry} (exit ${code}); the first start compiles instead\n${out}`);
}

await trainCodeCache('serve', [], SERVER_NODE_FLAGS);
await trainCodeCache('admin', ['--help'], []);
// The ES module bundles of earlier builds: nothing runs them any more.
for (const old of ['main.mjs', 'main.mjs.map', 'admin.mjs', 'admin.mjs.map']) rmSync(join(root, 'out/server', old), { force: true });
process.stdout.write('built out/server/main.cjs, admin.cjs (each with its code cache) and report-worker.mjs\n');
