import { loadConfig } from './config';
import { describeDatabase } from './db/database';
import { startServer } from './runtime';

/** `npm run serve`: the embedded server, headless (CONTRACT §1). */
async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    process.stderr.write(`paydesk: ${(err as Error).message}\n`);
    process.exit(2);
  }
  const server = await startServer(config);
  const base = server.app.server.address();
  const port = typeof base === 'object' && base ? base.port : config.port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  process.stdout.write(`paydesk listening on http://${host}:${port} (data: ${describeDatabase(config)})\n`);

  let signalled = false;
  const shutdown = (signal: string) => {
    if (signalled) return;
    signalled = true;
    server.app.log.info({ signal }, 'shutting down');
    server
      .stop()
      .then(() => process.exit(0))
      .catch((err: unknown) => {
        process.stderr.write(`paydesk: shutdown failed: ${(err as Error).message}\n`);
        process.exit(1);
      });
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

main().catch((err: unknown) => {
  process.stderr.write(`paydesk: failed to start: ${(err as Error).message}\n`);
  process.exit(1);
});
