import type { FastifyInstance } from 'fastify';
import pino, { type Logger } from 'pino';
import { build } from './app';
import type { Config } from './config';
import { connectDatabase, migrate, type OpenedDatabase } from './db/database';
import { systemClock, type Clock } from './lib/clock';
import { randomIds } from './lib/ids';

export interface RunningServer {
  app: FastifyInstance;
  database: OpenedDatabase;
  url: string;
  stop(): Promise<void>;
}

/** The server's pino logger; `destination` (stdout by default) lets a test read the lines. */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  const options = { level, redact: { paths: ['req.headers.authorization', 'req.headers.cookie'], remove: true } };
  return destination ? pino(options, destination) : pino(options);
}

/**
 * Opens the data directory, migrates, builds and listens: shared by `npm run serve` and the
 * desktop app. `stop()` stops taking requests, lets those in flight finish and closes the database.
 */
export async function startServer(config: Config, opts: { clock?: Clock; logger?: Logger | false } = {}): Promise<RunningServer> {
  const database = connectDatabase(config);
  await migrate(database.db);
  const logger = opts.logger ?? createLogger(config.logLevel);
  const app = await build({ db: database.db, clock: opts.clock ?? systemClock, ids: randomIds, config, logger, backgroundJobs: true });
  await app.listen({ port: config.port, host: config.host });
  const url = app.listeningOrigin;
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      await app.close();
      await database.close();
    })());
  return { app, database, url, stop };
}
