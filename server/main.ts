import { loadConfig } from './config';
import { describeDatabase } from './db/database';
import { lifecycleLine } from './lifecycle-log';
import { SETUP_LINK_MINUTES } from './modules/auth';
import { startServer } from './runtime';
import { buildInfo } from './version';

/**
 * `npm run serve`: the embedded server, headless. Its start-up, shutdown and shutdown-complete
 * lines are JSON like every other log line (server/lifecycle-log.ts); the first one contains
 * `listening on http://HOST:PORT` followed by a space.
 */
const HELP = `usage: npm run serve                (or: node out/server/main.cjs)
       npm run serve -- --version

Starts the headless Paydesk server: the merchant API, hosted checkout and back office on one
port. Configured by environment variables only (docs/deployment.md lists them all), e.g.:
  PORT [4610]  HOST [127.0.0.1]  DATA_DIR [./.paydesk]  DATABASE_URL  DATABASE_POOL_SIZE [10]
  PUBLIC_BASE_URL  REDIS_URL  TRUST_PROXY  SHUTDOWN_DRAIN_MS  LOG_LEVEL  METRICS  METRICS_PORT
Check them first with: npm run admin -- doctor
SIGTERM or SIGINT drains the requests in flight and exits 0.

examples:
  PORT=4610 DATA_DIR=/var/lib/paydesk npm run serve
  DATABASE_URL=postgres://paydesk@127.0.0.1/paydesk PORT=4611 METRICS=on npm run serve`;

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(`${HELP}\n`);
    return;
  }
  if (args.includes('--version')) {
    const { version, commit } = buildInfo();
    process.stdout.write(`paydesk ${version} (commit ${commit}, Node ${process.versions.node})\n`);
    return;
  }
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    process.stderr.write(`paydesk: ${(err as Error).message}\n`);
    process.exit(2);
  }
  // The process keeps its days in the instance's zone (a shift's "today", server/lib/local-day.ts): TZ, else the default market's.
  process.env.TZ = config.timeZone;
  const server = await startServer(config);
  const base = server.app.server.address();
  const port = typeof base === 'object' && base ? base.port : config.port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const url = `http://${host}:${port}`;
  lifecycleLine(`paydesk listening on ${url} (data: ${describeDatabase(config)})`, { url, engine: server.database.engine });
  // Drained on a signal from the moment it listens: a SIGTERM while the first-run check below
  // still awaits the database would otherwise end the process at once, without a drain.
  let signalled = false;
  const shutdown = (signal: string) => {
    if (signalled) return;
    signalled = true;
    const started = performance.now();
    lifecycleLine('shutting down: draining requests in flight', { signal, drain_ms: config.shutdownDrainMs });
    server
      .stop()
      .then(() => {
        lifecycleLine('shutdown complete', { signal, duration_ms: Math.round(performance.now() - started) });
        process.exit(0);
      })
      .catch((err: unknown) => {
        lifecycleLine('shutdown failed', { signal, level: 50, err: (err as Error).message });
        process.exit(1);
      });
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  // First run: no staff account yet. The link is the only way to make the first administrator.
  // On a database that is not migrated yet (PostgreSQL: serve does not migrate) there is nothing to
  // check; the link is printed by the first start after db:migrate.
  const setup = await server.app.firstRun.open(config.publicBaseUrl ?? url).catch((err: unknown) => {
    lifecycleLine('paydesk first run: no setup link, the database is not ready (run db:migrate, then start again)', { level: 40, err: (err as Error).message });
    return null;
  });
  if (setup) lifecycleLine(`paydesk first run: no staff account yet. Create the first administrator at ${setup} (valid ${SETUP_LINK_MINUTES} minutes, once)`, { setup_url: setup });
}

main().catch((err: unknown) => {
  process.stderr.write(`paydesk: failed to start: ${(err as Error).message}\n`);
  process.exit(1);
});
