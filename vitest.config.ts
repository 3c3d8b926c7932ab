import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts', 'test/integration/**/*.test.ts', 'test/drills/**/*.test.ts', 'test/tooling/**/*.test.ts', 'test/security/**/*.test.ts'],
    // scrypt at 2^17 costs ~0.3 s and 128 MiB per hash; the suite signs in hundreds of times.
    // test/unit/password.test.ts proves production hashes at 2^17 (docs/security.md).
    env: { PAYDESK_TEST_SCRYPT_LOG2N: '12' },
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 2,
  },
});
