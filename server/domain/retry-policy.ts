/**
 * What happens to a delivery after an attempt (docs/webhooks.md "Delivery, timeout and
 * retries"): a pure function of the attempt's outcome, the retry schedule and the clock, so
 * the rules are tested without HTTP or a database (test/unit/webhooks-retry-policy.test.ts).
 *
 * - 2xx: succeeded.
 * - Aborted by our own shutdown: not the receiver's fault; due again at once, same step.
 * - 410 Gone: the endpoint is disabled and this delivery is **held** with the others (sent
 *   again, in event order, when the endpoint is enabled): one 410 from a misconfigured proxy
 *   must not lose events.
 * - Any other failure while the endpoint has been disabled meanwhile: held.
 * - Otherwise: retried after the next delay of the schedule, or failed after the last one.
 *   A `Retry-After` on 429/503 may postpone that retry, by at most RETRY_AFTER_MAX_EXTRA_S
 *   beyond the scheduled delay, so a receiver cannot park a delivery for a day.
 */

/** Longest Retry-After read from an answer (larger values are read as this). */
const MAX_RETRY_AFTER_S = 86_400;
/** How far past the scheduled delay a Retry-After may push one retry: 1 hour. */
export const RETRY_AFTER_MAX_EXTRA_S = 3_600;

export interface AttemptOutcome {
  /** HTTP status, or null when there was no answer (timeout, refused, reset, DNS, refused URL). */
  statusCode: number | null;
  /** The answer's Retry-After header, if any. */
  retryAfter: string | null;
  /** The attempt was aborted because this server is shutting down. */
  aborted: boolean;
}

export interface RetrySchedule {
  /** WEBHOOK_RETRY_DELAYS_S: the delay before retry 1, 2, … */
  delaysS: readonly number[];
  now: Date;
  /** Whether the endpoint is still active when the outcome is written. */
  endpointActive: boolean;
}

export type DeliveryState =
  | { status: 'succeeded'; step: number }
  | { status: 'pending'; step: number; nextAttemptAt: Date }
  | { status: 'held'; step: number; disableEndpoint: boolean }
  | { status: 'failed'; step: number };

export const isSuccessStatus = (code: number | null): boolean => code !== null && code >= 200 && code < 300;

/** Seconds from a Retry-After value (delta-seconds or HTTP-date), or null. */
export function parseRetryAfter(value: string | null, now: Date): number | null {
  if (!value) return null;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Math.min(Number(v), MAX_RETRY_AFTER_S);
  const at = Date.parse(v);
  if (Number.isNaN(at)) return null;
  return Math.min(Math.max(0, Math.ceil((at - now.getTime()) / 1000)), MAX_RETRY_AFTER_S);
}

/** The delay before a retry: the schedule's, or longer when the receiver asked, within the cap. */
export function retryDelaySeconds(scheduledS: number, outcome: AttemptOutcome, now: Date): number {
  if (outcome.statusCode !== 429 && outcome.statusCode !== 503) return scheduledS;
  const asked = parseRetryAfter(outcome.retryAfter, now) ?? 0;
  return Math.min(Math.max(scheduledS, asked), scheduledS + RETRY_AFTER_MAX_EXTRA_S);
}

/** The delivery's state after one attempt. `step` counts failed attempts in the current run of the schedule. */
export function nextDeliveryState(attempt: { step: number }, outcome: AttemptOutcome, schedule: RetrySchedule): DeliveryState {
  if (isSuccessStatus(outcome.statusCode)) return { status: 'succeeded', step: attempt.step };
  if (outcome.aborted) return { status: 'pending', step: attempt.step, nextAttemptAt: schedule.now };
  if (outcome.statusCode === 410) return { status: 'held', step: attempt.step, disableEndpoint: true };
  if (!schedule.endpointActive) return { status: 'held', step: attempt.step, disableEndpoint: false };
  const step = attempt.step + 1;
  const scheduled = schedule.delaysS[step - 1];
  if (scheduled === undefined) return { status: 'failed', step };
  const delayS = retryDelaySeconds(scheduled, outcome, schedule.now);
  return { status: 'pending', step, nextAttemptAt: new Date(schedule.now.getTime() + delayS * 1000) };
}
