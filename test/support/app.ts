import { mkdtempSync, rmSync } from 'node:fs';
import { createReportRunner } from '../../server/modules/reports/report-runner';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { build } from '../../server/app';
import { createLogger } from '../../server/runtime';
import { loadConfig, type Config } from '../../server/config';
import { migrate, type Db, type OpenedDatabase } from '../../server/db/database';
import { createTestDatabase, databaseUrls } from './database';
import { ManualClock } from '../../server/lib/clock';
import { randomIds } from '../../server/lib/ids';
import { createIntegration, type CreatedIntegration } from '../../server/modules/integrations/integrations.service';
import { ownAddresses } from '../../server/modules/webhooks/url-policy';
import { createOutbox, type Outbox } from '../../server/modules/webhooks/outbox';
import type { ProviderRegistry } from '../../server/providers/types';

export interface TestContext {
  app: FastifyInstance;
  database: OpenedDatabase;
  clock: ManualClock;
  /** The app's webhook outbox: a test's own transitions and dispatchers use this one. */
  outbox: Outbox;
  config: Config;
  dataDir: string;
  /** Creates a merchant + test integration + key through the same service the CLI uses. */
  merchant(name?: string, webhookUrl?: string): Promise<CreatedIntegration>;
  close(): Promise<void>;
}

let counter = 0;

/**
 * A real database, migrated, with a movable clock: a SQLite file in a fresh temp directory, or a
 * fresh PostgreSQL database in the `postgres` vitest project (test/support/database.ts).
 */
export async function createTestApp(
  opts: {
    rateLimitPerMin?: number;
    env?: Record<string, string>;
    /** null: no PUBLIC_BASE_URL, so links use the listening address. */
    publicBaseUrl?: string | null;
    /** pino logger for the app (none by default): a test reads what would be logged. */
    logger?: FastifyBaseLogger;
    /** Rail providers instead of the sandbox ones (a drill's hanging provider), and their call timeout in ms. */
    providers?: ProviderRegistry;
    providerTimeoutMs?: number;
    /** Runs after build and before ready: a test may add its own routes (they get every app-wide hook). */
    extend?: (app: FastifyInstance) => void | Promise<void>;
    /** The app talks to the database through this (a Kysely plugin that records its SQL: test/support/query-plans.ts). */
    wrapDb?: (db: Db) => Db;
    /** Runs the webhook dispatcher and the sweeper, as `npm run serve` does (off by default: tests drive their own). */
    backgroundJobs?: boolean;
    /** The report worker's byte slots (report-runner.ts): a few bytes make an export take many round trips. */
    reportSlotBytes?: number;
  } = {},
): Promise<TestContext> {
  const dataDir = mkdtempSync(join(tmpdir(), 'paydesk-test-'));
  const testDb = await createTestDatabase(dataDir);
  if (testDb.url) databaseUrls.set(dataDir, testDb.url);
  const config = loadConfig(
    {
      DATA_DIR: dataDir,
      ...(testDb.url ? { DATABASE_URL: testDb.url } : {}),
      RATE_LIMIT_PER_MIN: String(opts.rateLimitPerMin ?? 0),
      ...(opts.publicBaseUrl === null ? {} : { PUBLIC_BASE_URL: opts.publicBaseUrl ?? 'http://paydesk.test' }),
      ...opts.env,
    },
  );
  const database = testDb.opened;
  await migrate(database.db);
  const clock = new ManualClock(new Date());
  const outbox = createOutbox();
  const app = await build({
    db: opts.wrapDb ? opts.wrapDb(database.db) : database.db,
    clock,
    ids: randomIds,
    config,
    // PAYDESK_TEST_LOG=error (or another level) prints the app's log: what a 500 hides.
    logger: opts.logger ?? (process.env.PAYDESK_TEST_LOG ? createLogger(process.env.PAYDESK_TEST_LOG) : false),
    outbox,
    ...(opts.providers ? { providers: opts.providers } : {}),
    ...(opts.providerTimeoutMs ? { providerTimeoutMs: opts.providerTimeoutMs } : {}),
    ...(opts.backgroundJobs ? { backgroundJobs: true } : {}),
    ...(opts.reportSlotBytes ? { reports: createReportRunner(opts.wrapDb ? opts.wrapDb(database.db) : database.db, false, { slotBytes: opts.reportSlotBytes }) } : {}),
  });
  await opts.extend?.(app);
  await app.ready();
  return {
    app,
    database,
    clock,
    outbox,
    config,
    dataDir,
    merchant: (name, webhookUrl) =>
      createIntegration(database.db, clock, randomIds, { merchantName: name ?? `Merchant ${++counter} ${Date.now()}`, webhookUrl, ownAddresses: ownAddresses(config) }),
    close: async () => {
      await app.close();
      await testDb.dispose();
      databaseUrls.delete(dataDir);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
