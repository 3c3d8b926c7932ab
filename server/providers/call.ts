import { AppError } from '../lib/errors';

/** How long a provider call may take before the request answers 503 and leaves the attempt to the reconcile job. */
const DEFAULT_PROVIDER_TIMEOUT_MS = 15_000;

/** The provider did not answer in time: the outcome is unknown, so the attempt stays pending (not rolled back). */
export class ProviderTimeout extends AppError {
  constructor(ms: number) {
    super('PROVIDER_RAIL_UNAVAILABLE', `the payment provider did not answer within ${Math.ceil(ms / 1000)} s; the attempt stays pending and is settled when the provider answers: poll its status`, {
      retryAfterSeconds: 30,
    });
  }
}

/**
 * Calls a provider outside any transaction, bounded by the timeout (deps.providerTimeoutMs,
 * DEFAULT_PROVIDER_TIMEOUT_MS without one). A call still running after it is abandoned, not
 * cancelled: whatever it did is found by the next refresh.
 */
export async function callProvider<T>(deps: { providerTimeoutMs?: number | undefined }, call: () => Promise<T>): Promise<T> {
  const ms = deps.providerTimeoutMs ?? DEFAULT_PROVIDER_TIMEOUT_MS;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new ProviderTimeout(ms)), ms);
  });
  try {
    return await Promise.race([call(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
