import type { AppDeps } from './deps';
import { createApiKeyMemory } from './modules/auth';
import { createQuoteInputMemory } from './modules/payments';
import { createKeptAnswerMemory } from './http/kept-answers';
import { createOutbox } from './modules/webhooks';
import { createReportRunner } from './modules/reports';
import { sandboxProviders } from './providers/index';

/** What a caller must give; the rest has a default. `baseUrl` is left to build(), which knows the bound port. */
type Defaulted = 'baseUrl' | 'providers' | 'liveProviders' | 'backgroundJobs' | 'outbox' | 'apiKeys' | 'quoteInputs' | 'keptAnswers' | 'reports';
export type ComposeInput = Omit<AppDeps, Defaulted> & Partial<Pick<AppDeps, Defaulted>>;

export type ComposedDeps = Omit<AppDeps, 'baseUrl'> & Partial<Pick<AppDeps, 'baseUrl'>>;

/**
 * The one composition root: the app (`build()`), the CLI and the bench get their Deps here,
 * so each process has exactly one outbox, one API-key memory, one quote-input memory and one kept-answer memory, and no event hook or cache
 * lives in module state.
 */
export function composeDeps(input: ComposeInput): ComposedDeps {
  return {
    ...input,
    providers: input.providers ?? sandboxProviders,
    liveProviders: input.liveProviders ?? {},
    backgroundJobs: input.backgroundJobs ?? false,
    outbox: input.outbox ?? createOutbox(),
    apiKeys: input.apiKeys ?? createApiKeyMemory(),
    quoteInputs: input.quoteInputs ?? createQuoteInputMemory(),
    keptAnswers: input.keptAnswers ?? createKeptAnswerMemory(),
    reports: input.reports ?? createReportRunner(input.db, input.logger, input.config.reportSlotBytes ? { slotBytes: input.config.reportSlotBytes } : {}),
  };
}
