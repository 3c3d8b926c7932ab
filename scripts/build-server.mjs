#!/usr/bin/env node
// Bundles the server and the operator CLI into plain ES modules (out/server/*.mjs) so that
// `npm run serve` starts with plain node instead of compiling TypeScript through tsx at every
// start: about half the cold start and a third less memory (docs/performance.md).
// Packages are bundled too, but for the few that cannot be: a native addon, and the packages that
// read files beside their own modules (Swagger UI's static assets, @fastify/swagger's package.json);
// resolving and compiling ~400 CommonJS files from node_modules one by one was ~450 ms of a 1.5 s
// cold start (issue 16). `npm run build` (and so `npm ci`) runs this.
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Loaded from node_modules at run time: better-sqlite3 (a native addon), @fastify/swagger and
 * @fastify/swagger-ui (they read their package.json and static files relative to their own
 * directory), pg-native (pg's optional native driver, not installed). pg itself is required at run time by
 * server/db/postgres.ts, only when a PostgreSQL database is opened; undici and ioredis are
 * bundled but evaluated on first use (a dynamic import).
 */
const EXTERNAL = ['better-sqlite3', '@fastify/swagger', '@fastify/swagger-ui', 'pg-native'];

/** What both builds share: ES modules for this Node, beside each other in out/server. */
const common = {
  outdir: join(root, 'out/server'),
  outExtension: { '.js': '.mjs' },
  bundle: true,
  platform: 'node',
  format: 'esm',
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
  // The bundled CommonJS packages call require() for Node's own modules, and a few name
  // __dirname (ioredis's error stacks): an ES module has neither, so the bundle defines them.
  banner: {
    js: [
      "import { createRequire as __paydeskCreateRequire } from 'node:module';",
      "import { fileURLToPath as __paydeskFileURLToPath } from 'node:url';",
      'const require = __paydeskCreateRequire(import.meta.url);',
      'const __filename = __paydeskFileURLToPath(import.meta.url);',
      "const __dirname = __paydeskFileURLToPath(new URL('.', import.meta.url));",
    ].join(' '),
  },
  // Whitespace and syntax only (names are kept, so stack traces read as the source does): a third
  // less for V8 to read and parse at every start. The source map maps positions back.
  minifyWhitespace: true,
  minifySyntax: true,
});
// The report worker keeps its packages external, as before: it starts on demand, so bundling them
// saved nothing a user waits for, and with them bundled the server's RSS peaked 75 MB higher in an
// export (220 against 145 MB; bench/export-replay.ts on a kept 300,000-session database), which
// put issue 18's export RSS growth (< 50 MB) at 56.
await build({
  ...common,
  entryPoints: { 'report-worker': join(root, 'server/modules/reports/report-worker.ts') },
  // report-worker: the worker thread exports and reports run in (server/modules/reports/),
  // found beside main.mjs (and from the desktop app's out/main/) by report-runner.ts.
  packages: 'external',
});
process.stdout.write('built out/server/main.mjs, admin.mjs and report-worker.mjs\n');
