import { afterAll } from 'vitest';
import { settleDatabases } from './database';

/**
 * A setup file of the `postgres` vitest project (vitest.config.ts): registered before the test
 * file's own hooks, so it runs after them, once the file's test apps are closed.
 */
afterAll(() => settleDatabases());
