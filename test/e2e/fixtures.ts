import { test as base } from '@playwright/test';
import { budgetNow } from '../support/pace';

export { expect } from '@playwright/test';

/** A test's timeout when it sets none: a minute on a quiet machine. */
const QUIET_TEST_MS = 60_000;

/**
 * Playwright's `test`, with each test's timeout scaled to the pace measured as that test starts
 * (test/support/pace.ts), not only when its worker loaded the config: a worker lives through
 * many files, and another suite on the same cores can start in between. A test that calls
 * `test.setTimeout(budgetNow(…))` replaces it.
 */
export const test = base.extend<{ pacedTimeout: void }>({
  pacedTimeout: [
    // Playwright reads a fixture's dependencies from its first parameter: this one has none.
    // eslint-disable-next-line no-empty-pattern
    async ({}, use, testInfo) => {
      if (testInfo.timeout > 0) testInfo.setTimeout(Math.max(testInfo.timeout, budgetNow(QUIET_TEST_MS))); // 0: no timeout (--debug)
      await use();
    },
    { auto: true },
  ],
});
