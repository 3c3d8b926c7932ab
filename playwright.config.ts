import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from '@playwright/test';
import { PACE, withHeadroom } from './test/support/pace';

/**
 * Browser tests of the payer's hosted checkout against the real server (`tsx server/main.ts`)
 * on a fresh temporary DATA_DIR, with the renderer built first. The config module is loaded by
 * the runner and again by every worker: the data directory and port are fixed in the
 * environment on first load so all of them agree.
 */
if (!process.env.PAYDESK_E2E_DATA_DIR) {
  const made = mkdtempSync(join(tmpdir(), 'paydesk-e2e-'));
  process.env.PAYDESK_E2E_DATA_DIR = made;
  // Made by this process, the runner (workers inherit the variable): removed when the runner
  // exits, by which time Playwright has stopped the web server that used it. A directory given
  // in PAYDESK_E2E_DATA_DIR is the caller's and is left alone.
  process.on('exit', () => rmSync(made, { recursive: true, force: true }));
}
if (!process.env.PAYDESK_E2E_PORT) process.env.PAYDESK_E2E_PORT = '47913';
// Staff passwords hashed at a test cost, as in vitest: the suite signs in hundreds of times, and at
// the production cost (scrypt 2^17, 128 MiB) one sign-in took 4-6.5 s on a busy 2-core machine.
// The server, the CLI runs and the servers a spec starts inherit it; test/unit/password.test.ts
// proves the production default.
if (!process.env.PAYDESK_TEST_SCRYPT_LOG2N) process.env.PAYDESK_TEST_SCRYPT_LOG2N = '12';

const dataDir = process.env.PAYDESK_E2E_DATA_DIR;
const port = Number(process.env.PAYDESK_E2E_PORT);
export const baseURL = `http://127.0.0.1:${port}`;
/** Debian's Chromium and its flags, for every browser of these tests (a spec that launches its own adds to them). */
export const chromiumLaunch = {
  executablePath: process.env.PLAYWRIGHT_CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
};

const PHONE = { browserName: 'chromium', viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true } as const;
const BUDGET_SPEC = '**/checkout-budget.spec.ts';

export default defineConfig({
  testDir: 'test/e2e',
  testMatch: '**/*.spec.ts',
  outputDir: 'test-results/artifacts',
  globalSetup: './test/e2e/global-setup.ts',
  fullyParallel: true,
  workers: process.env.CI ? 2 : 3,
  retries: 0,
  forbidOnly: !!process.env.CI,
  // Quiet-machine budgets scaled by the pace each process measures when it loads this file, with
  // headroom on a busy machine (test/support/pace.ts: 1 when idle, at most 8). The `test` of
  // test/e2e/fixtures.ts measures again as each test starts; a spec's own test.setTimeout uses budgetNow.
  timeout: Math.round(60_000 * withHeadroom(PACE)),
  expect: { timeout: Math.round(10_000 * withHeadroom(PACE)) },
  reporter: [['list']],
  use: {
    baseURL,
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    launchOptions: chromiumLaunch,
  },
  projects: [
    { name: 'desktop', testIgnore: BUDGET_SPEC, use: { browserName: 'chromium', viewport: { width: 1280, height: 860 } } },
    // Mobile: a phone-sized viewport with touch, still Debian's Chromium (no downloaded browsers).
    { name: 'mobile', testIgnore: BUDGET_SPEC, use: PHONE },
    // The checkout's time budgets, measured at phone size once the other two projects have
    // finished, so no test of this suite shares the cores with the measurement
    // (`--project=budget --no-deps` runs it alone).
    { name: 'budget', testMatch: BUDGET_SPEC, dependencies: ['desktop', 'mobile'], use: PHONE },
  ],
  webServer: {
    // Started as `npm run serve` starts it (scripts/serve.mjs): the bundle `npm run build` made, with
    // its report worker, as production runs them. PAYDESK_E2E_SKIP_BUILD=1 reuses an existing out/
    // (faster reruns while iterating); with sources newer than the bundle, serve.mjs runs them through tsx.
    command: process.env.PAYDESK_E2E_SKIP_BUILD === '1' ? 'node scripts/serve.mjs serve' : 'npm run -s build && node scripts/serve.mjs serve',
    url: `${baseURL}/healthz`,
    reuseExistingServer: false,
    timeout: 180_000,
    stdout: 'ignore',
    stderr: 'pipe',
    env: {
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      PUBLIC_BASE_URL: baseURL,
      RATE_LIMIT_PER_MIN: '0',
      LOG_LEVEL: 'warn',
      // Small report chunks: an export of a few thousand rows runs long enough to follow and cancel (keyboard.spec.ts).
      REPORT_SLOT_BYTES: '16',
    },
  },
});
