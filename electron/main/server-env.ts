import { join } from 'node:path';

/**
 * The environment the embedded server is configured from in the desktop app:
 * loopback only, a free port unless PORT is set, and the data in the OS app-data folder
 * unless DATA_DIR is set. Everything else (PUBLIC_BASE_URL, webhook delays, rate limit) is
 * read as `npm run serve` reads it.
 */
export function desktopServerEnv(env: NodeJS.ProcessEnv, userDataDir: string): NodeJS.ProcessEnv {
  return {
    ...env,
    // The back office has no TLS and staff sign in to it: it never listens beyond this machine.
    HOST: '127.0.0.1',
    PORT: env.PORT?.trim() ? env.PORT : '0',
    DATA_DIR: env.DATA_DIR?.trim() ? env.DATA_DIR : join(userDataDir, 'data'),
  };
}
