import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config';
import type { Db } from './db/database';
import type { Clock } from './lib/clock';
import type { IdGenerator } from './lib/ids';
import type { ApiKeyMemory } from './modules/auth';
import type { QuoteInputMemory } from './modules/payments';
import type { KeptAnswerMemory } from './http/kept-answers';
import type { Outbox } from './modules/webhooks';
import type { ReportRunner } from './modules/reports';
import type { ProviderRegistry } from './providers/types';

/**
 * What every route module and service is given: the one dependency object, composed by
 * `composeDeps()` (compose.ts) for the app, the CLI and the bench. It lives apart from app.ts so route modules can name it without
 * importing the app that imports them.
 */
export interface AppDeps {
  db: Db;
  clock: Clock;
  ids: IdGenerator;
  config: Config;
  /** pino logger, or false for none (tests). */
  logger: FastifyBaseLogger | false;
  /** PUBLIC_BASE_URL, or the listening address when it is not set. */
  baseUrl(): string;
  /** Payment rail providers of test mode (sandbox ones unless a test swaps them). */
  providers: ProviderRegistry;
  /** Real connectors for live mode; none ships yet, so live sessions offer only cash. */
  liveProviders: ProviderRegistry;
  /** How long a provider call may take (ms) before the request answers 503 and the attempt waits for reconciliation; 15 s by default (server/providers/call.ts). */
  providerTimeoutMs?: number;
  /** Run the timers (expiry sweeper, …): true for serve and desktop, false in tests that move the clock by hand. */
  backgroundJobs: boolean;
  /** The webhook outbox: transitions write delivery rows into it, dispatchers wake on it. */
  outbox: Outbox;
  /** Resolved API keys and their last-use writes (server/modules/auth/merchant-auth.ts): this process's, not module state. */
  apiKeys: ApiKeyMemory;
  /** The payer quote's fee rules, kept under the same change stamp (server/modules/payments/quote-inputs.ts). */
  quoteInputs: QuoteInputMemory;
  /** The session lookup's and the quote's answers, kept while nothing changed (SQLite: server/http/kept-answers.ts). */
  keptAnswers: KeptAnswerMemory;
  /** Exports and reports, off the event loop (a worker thread on SQLite: server/modules/reports/report-runner.ts). */
  reports: ReportRunner;
}
