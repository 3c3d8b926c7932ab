import type { KnipConfig } from 'knip';

/**
 * Dead code check (`npm run lint`): files nothing reaches, exports nothing imports, and
 * dependencies nothing uses. The entry points are the processes and tools that start a file
 * by its path; knip's own plugins add the vitest, Playwright, ESLint and Vite configs and the
 * test files they name.
 */
const config: KnipConfig = {
  entry: [
    // electron.vite.config.ts: the main process, the two preloads, and the renderer's HTML
    // entries (backoffice/index.html, checkout/index.html) with the checkout's first reads.
    'electron/preload/{index,connect}.ts',
    'renderer/backoffice/main.tsx',
    'renderer/checkout/main.tsx',
    'renderer/checkout/first-fetch.ts',
    // scripts/build-server.mjs and scripts/serve.mjs: the server, the operator CLI and the report
    // worker (started by path from server/modules/reports/report-runner.ts, through its boot
    // file under tsx).
    'server/main.ts',
    'server/cli/admin.ts',
    'server/modules/reports/report-worker.ts',
    'server/modules/reports/report-worker-boot.mjs',
    // Run by path: npm scripts, the commit-msg hook (.githooks/commit-msg), the build.
    'scripts/*.mjs',
    'scripts/openapi/*.ts',
    // Benchmarks and their aids, each run by path (npm run bench, `npx tsx bench/…`, or
    // preloaded with --import: docs/performance.md, bench/diagnostics/README.md).
    'bench/*.{ts,mjs}',
    'bench/diagnostics/*.{ts,mjs}',
    // Each migration's `up`/`down` is read by Kysely's Migrator through the namespace objects
    // of server/db/migrations/index.ts.
    'server/db/migrations/[0-9]*.ts',
    // A library for merchants' own receivers, copied out of the repository (docs/webhooks.md):
    // every export is its API.
    'shared/webhooks/*.ts',
    // The types of scripts/server-node-flags.mjs for the TypeScript that imports it.
    'scripts/server-node-flags.d.mts',
  ],
  project: ['electron/**/*.ts', 'renderer/**/*.{ts,tsx}', 'server/**/*.{ts,mjs}', 'shared/**/*.ts', 'scripts/**/*.{mjs,ts,mts}', 'bench/**/*.{ts,mjs}', 'test/**/*.ts'],
  // System tools the tests run when present (each test skips without it).
  ignoreDependencies: [
    // Imported by the client example in docs/merchant-api.md, which
    // test/tooling/openapi-client.test.ts compiles and runs.
    'openapi-fetch',
    // react-intl's own formatter, imported by test/unit/backoffice-error-text.test.ts and
    // installed with react-intl rather than listed in package.json.
    'intl-messageformat',
  ],
  ignoreBinaries: ['strace', 'runuser', 'promtool', 'dropdb', 'systemd-analyze'],
};

export default config;
