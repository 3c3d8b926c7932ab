import type { AppDeps } from './deps';
import { createOutbox } from './modules/webhooks/outbox';
import { sandboxProviders } from './providers/index';

/** What a caller must give; the rest has a default. `baseUrl` is left to build(), which knows the bound port. */
export type ComposeInput = Omit<AppDeps, 'baseUrl' | 'providers' | 'liveProviders' | 'backgroundJobs' | 'outbox'> &
  Partial<Pick<AppDeps, 'baseUrl' | 'providers' | 'liveProviders' | 'backgroundJobs' | 'outbox'>>;

export type ComposedDeps = Omit<AppDeps, 'baseUrl'> & Partial<Pick<AppDeps, 'baseUrl'>>;

/**
 * The one composition root: the app (`build()`), the CLI and the bench get their Deps here,
 * so each process has exactly one outbox and no event hook lives in module state.
 */
export function composeDeps(input: ComposeInput): ComposedDeps {
  return {
    ...input,
    providers: input.providers ?? sandboxProviders,
    liveProviders: input.liveProviders ?? {},
    backgroundJobs: input.backgroundJobs ?? false,
    outbox: input.outbox ?? createOutbox(),
  };
}
