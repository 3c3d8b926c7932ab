import { describe, expect, it } from 'vitest';
import { nextDeliveryState, parseRetryAfter, RETRY_AFTER_MAX_EXTRA_S, retryDelaySeconds } from '../../server/domain/retry-policy';

const now = new Date('2026-06-01T09:00:00.000Z');
const delaysS = [5, 300, 1800];
const schedule = { delaysS, now, endpointActive: true };
const answer = (statusCode: number | null, retryAfter: string | null = null) => ({ statusCode, retryAfter, aborted: false });
const at = (s: number) => new Date(now.getTime() + s * 1000);

describe('nextDeliveryState (the retry policy)', () => {
  it('succeeds on any 2xx', () => {
    expect(nextDeliveryState({ step: 0 }, answer(200), schedule)).toEqual({ status: 'succeeded', step: 0 });
    expect(nextDeliveryState({ step: 2 }, answer(204), schedule).status).toBe('succeeded');
  });

  it('retries other answers and no answer after the next scheduled delay, and fails after the last', () => {
    expect(nextDeliveryState({ step: 0 }, answer(500), schedule)).toEqual({ status: 'pending', step: 1, nextAttemptAt: at(5) });
    expect(nextDeliveryState({ step: 1 }, answer(null), schedule)).toEqual({ status: 'pending', step: 2, nextAttemptAt: at(300) });
    expect(nextDeliveryState({ step: 2 }, answer(302), schedule)).toEqual({ status: 'pending', step: 3, nextAttemptAt: at(1800) });
    expect(nextDeliveryState({ step: 3 }, answer(500), schedule)).toEqual({ status: 'failed', step: 4 });
  });

  it('holds the delivery and disables the endpoint on 410, whatever the step', () => {
    expect(nextDeliveryState({ step: 0 }, answer(410), schedule)).toEqual({ status: 'held', step: 0, disableEndpoint: true });
    expect(nextDeliveryState({ step: 3 }, answer(410), schedule)).toEqual({ status: 'held', step: 3, disableEndpoint: true });
  });

  it('holds a failed attempt whose endpoint was disabled meanwhile, but keeps a success', () => {
    const disabled = { ...schedule, endpointActive: false };
    expect(nextDeliveryState({ step: 1 }, answer(500), disabled)).toEqual({ status: 'held', step: 1, disableEndpoint: false });
    expect(nextDeliveryState({ step: 1 }, answer(200), disabled).status).toBe('succeeded');
  });

  it('an attempt aborted by our shutdown is due again at once, on the same step', () => {
    expect(nextDeliveryState({ step: 1 }, { statusCode: null, retryAfter: null, aborted: true }, schedule)).toEqual({ status: 'pending', step: 1, nextAttemptAt: now });
  });

  it('honours a longer Retry-After on 429 and 503, never a shorter one, and caps it at 1 h past the schedule', () => {
    expect(nextDeliveryState({ step: 0 }, answer(429, '120'), schedule)).toMatchObject({ nextAttemptAt: at(120) });
    expect(nextDeliveryState({ step: 0 }, answer(503, '1'), schedule)).toMatchObject({ nextAttemptAt: at(5) });
    // A day asked for: the retry still comes within the next step + 1 h.
    expect(nextDeliveryState({ step: 0 }, answer(429, '86400'), schedule)).toMatchObject({ nextAttemptAt: at(5 + RETRY_AFTER_MAX_EXTRA_S) });
    expect(nextDeliveryState({ step: 2 }, answer(503, new Date(now.getTime() + 86_400_000).toUTCString()), schedule)).toMatchObject({
      nextAttemptAt: at(1800 + RETRY_AFTER_MAX_EXTRA_S),
    });
    // Only 429 and 503 ask to wait.
    expect(nextDeliveryState({ step: 0 }, answer(500, '600'), schedule)).toMatchObject({ nextAttemptAt: at(5) });
    expect(RETRY_AFTER_MAX_EXTRA_S).toBe(3600);
  });

  it('reads Retry-After as seconds or an HTTP date, and ignores nonsense', () => {
    expect(parseRetryAfter('30', now)).toBe(30);
    expect(parseRetryAfter(new Date(now.getTime() + 90_000).toUTCString(), now)).toBe(90);
    expect(parseRetryAfter(new Date(now.getTime() - 90_000).toUTCString(), now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(parseRetryAfter(null, now)).toBeNull();
    expect(retryDelaySeconds(5, answer(429, 'soon'), now)).toBe(5);
  });
});
