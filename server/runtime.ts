import type { FastifyInstance } from 'fastify';
import pino, { type Logger } from 'pino';
import { build } from './app';
import type { Config } from './config';
import { connectDatabase, migrate, type OpenedDatabase } from './db/database';
import { refusalOf, schemaStatus, staleReasonOf } from './db/schema-version';
import { startMaintenance, type Checkpointer } from './db/maintenance';
import { systemClock, type Clock } from './lib/clock';
import { randomIds } from './lib/ids';
import { logBase } from './lifecycle-log';

export interface RunningServer {
  app: FastifyInstance;
  database: OpenedDatabase;
  url: string;
  stop(): Promise<void>;
}

/** The server's pino logger; `destination` (stdout by default) lets a test read the lines. */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  const options = { level, base: logBase(), redact: { paths: ['req.headers.authorization', 'req.headers.cookie'], remove: true } };
  return destination ? pino(options, destination) : pino(options);
}

/**
 * Opens the database, checks (SQLite: applies) its migrations, builds and listens: shared by
 * `npm run serve` and the desktop app.
 *
 * SQLite migrates at start, as it always has (one process owns the file: zero setup). On
 * PostgreSQL several instances share the database and a rolling deploy migrates once, with
 * `npm run admin -- db:migrate`: an instance only checks. A schema newer than this build is
 * refused (one line naming both versions); an older one starts with /readyz at 503 until the
 * migration has run (server/http/readiness.ts).
 *
 * `stop()` turns /readyz 503, waits `shutdownDrainMs` (for the balancer to notice), stops taking
 * requests, lets those in flight finish, stops the background jobs (releasing webhook leases)
 * and closes the database.
 */
export async function startServer(config: Config, opts: { clock?: Clock; logger?: Logger | false } = {}): Promise<RunningServer> {
  const database = connectDatabase(config);
  const logger = opts.logger ?? createLogger(config.logLevel);
  try {
    if (database.engine === 'sqlite') {
      await migrate(database.db);
    } else {
      const status = await schemaStatus(database.db);
      const refusal = refusalOf(status);
      if (refusal) throw new Error(refusal);
      const stale = staleReasonOf(status);
      if (stale && logger) logger.warn({ pending: status.pending }, `serving with /readyz at 503: ${stale}`);
    }
  } catch (err) {
    await database.close();
    throw err;
  }
  const app = await build({ db: database.db, clock: opts.clock ?? systemClock, ids: randomIds, config, logger, backgroundJobs: true });
  await app.listen({ port: config.port, host: config.host });
  // SQLite: from now on the WAL is checkpointed by a worker thread, not inside the event loop's
  // commits (server/db/maintenance.ts). Started once listening: its thread's start is not the server's.
  const checkpointer: Checkpointer | null = startMaintenance(database, config.databaseFile, {
    onError: (message, failures) => logger && logger.error({ err: message, failures }, failures > 1 ? `WAL checkpoints still failing (${failures} in a row)` : 'WAL checkpoint failed'),
    onStopped: (message) => logger && logger.error({ err: message }, 'WAL checkpoint worker stopped; the server checkpoints in its commits again'),
    onRecovered: (failures) => logger && logger.info({ failures }, `WAL checkpoints succeed again after ${failures} failed`),
  });
  app.metrics?.track({ pool: database.pool, checkpointer });
  const url = app.listeningOrigin;
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      app.readiness.drain();
      if (config.shutdownDrainMs > 0) await new Promise((r) => setTimeout(r, config.shutdownDrainMs));
      await app.close();
      // The worker's connection closes first: the server's, the last one, then checkpoints what is left and removes the WAL.
      await checkpointer?.stop();
      await database.close();
    })());
  return { app, database, url, stop };
}
