import { configDefaults, defineConfig } from 'vitest/config';
import { budget, PACE } from './test/support/pace.ts';

/**
 * Projects, all in `vitest run` and `npm test`: `sqlite` runs everything but the drills on the
 * embedded default; `postgres` runs the suites that touch a database again on PostgreSQL
 * (test/support/postgres-global.ts finds a server or starts a throwaway one,
 * test/support/postgres-cluster.ts, and every test app gets a fresh database:
 * test/support/database.ts). `drills` and `drills-postgres` run test/drills (spawned servers,
 * races and kills: the slow ones) with their own timeouts; `--project drills` runs them alone.
 *
 * Timeouts are quiet-machine figures scaled by the pace measured when the config loads
 * (test/support/pace.ts): on a busy machine a test gets the time its measured rate needs.
 */
const everything = ['test/unit/**/*.test.ts', 'test/integration/**/*.test.ts', 'test/tooling/**/*.test.ts', 'test/security/**/*.test.ts'];
const drills = ['test/drills/**/*.test.ts'];
// On by default; PAYDESK_TEST_PG=0 leaves PostgreSQL out (a quick local run of the SQLite half).
const withPostgres = process.env.PAYDESK_TEST_PG !== '0';
// Drills that read the SQLite file of a spawned server stay SQLite-only; on PostgreSQL the races
// run in-process and across two spawned instances (test/drills/multi-instance.test.ts).
const onBothEngines = ['test/integration/**/*.test.ts', 'test/security/**/*.test.ts'];
const drillsOnBothEngines = ['test/drills/races.test.ts', 'test/drills/multi-instance.test.ts'];
// These open a SQLite file of their own in either project (the SQLite schema and upgrades, file
// modes, the CLI and `npm run serve` on DATA_DIR): on PostgreSQL they would test SQLite again.
// The CLI on PostgreSQL is covered by the files that run it through test/support/cli.ts.
const sqliteOnly = [
  'test/integration/cli.test.ts',
  'test/integration/serve.test.ts',
  'test/integration/durability-strace.test.ts',
  'test/integration/sqlite-checkpointer.test.ts',
  'test/integration/webhooks-restart.test.ts',
  'test/integration/migrations.test.ts',
  'test/integration/migration-0009.test.ts',
  'test/integration/migration-0035.test.ts',
  'test/integration/migrations-upgrade.test.ts',
  'test/integration/migrations-schema.test.ts',
  'test/security/file-permissions.test.ts',
  // Both engines at once (a SQLite desk copied into PostgreSQL): it finds its own PostgreSQL server.
  'test/integration/db-copy.test.ts',
];

const onPostgres = {
  exclude: [...configDefaults.exclude, ...sqliteOnly],
  env: { PAYDESK_TEST_SCRYPT_LOG2N: '12', PAYDESK_TEST_ENGINE: 'postgres', PAYDESK_TEST_PACE: String(PACE) },
  globalSetup: ['test/support/postgres-global.ts'],
  setupFiles: ['test/support/postgres-file.ts'],
};
// A drill spawns servers and waits on them; its tests name their own budgets where they need more.
const drillTimeouts = { testTimeout: budget(60_000), hookTimeout: budget(90_000) };

export default defineConfig({
  test: {
    // scrypt at 2^17 costs ~0.3 s and 128 MiB per hash; the suite signs in hundreds of times.
    // test/unit/password.test.ts proves production hashes at 2^17 (docs/security.md).
    // The pace measured here is handed to every test process (test/support/pace.ts reads it).
    env: { PAYDESK_TEST_SCRYPT_LOG2N: '12', PAYDESK_TEST_PACE: String(PACE) },
    environment: 'node',
    testTimeout: budget(30_000),
    hookTimeout: budget(60_000),
    pool: 'forks',
    maxWorkers: 2,
    projects: [
      { extends: true, test: { name: 'sqlite', include: everything } },
      { extends: true, test: { name: 'drills', include: drills, ...drillTimeouts } },
      ...(withPostgres ? [
        { extends: true as const, test: { name: 'postgres', include: onBothEngines, ...onPostgres } },
        { extends: true as const, test: { name: 'drills-postgres', include: drillsOnBothEngines, ...onPostgres, ...drillTimeouts } },
      ] : []),
    ],
  },
});
