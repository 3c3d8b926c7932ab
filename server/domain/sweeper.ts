import type { Db } from '../db/database';
import { runExclusive } from '../db/leader';
import { applyTransition, expireIfDue, type TransitionDeps } from './session-transitions';
import { purgeExpiredIdempotencyKeys } from '../modules/idempotency/idempotency.service';
import { endDueTransferWindows } from './bank-transfer-window';
import { expireAttempt } from './attempt-transitions';
import { expireDueSlips } from './slip-transitions';

/**
 * Time-driven moves, run every second by the server (and at start-up, so a restart loses
 * nothing): open sessions past expires_at → expired; Mobile Money prompts past their expiry
 * → attempt expired and session back to open; bank-transfer windows that ended → attempt
 * expired and session back to open (or expired); slips past expiry → expired.
 */
export async function sweep(db: Db, deps: TransitionDeps): Promise<{ expiredSessions: number; expiredAttempts: number }> {
  const now = deps.clock.now().toISOString();
  let expiredAttempts = 0;
  const stalePrompts = await db
    .selectFrom('payment_attempts')
    .select(['id', 'session_id'])
    .where('status', '=', 'pending')
    .where('rail', '=', 'momo')
    .where('raw_status', '=', 'PROMPT_SENT')
    .where('prompt_expires_at', '<=', now)
    .limit(500)
    .execute();
  for (const a of stalePrompts) {
    await db.transaction().execute(async (trx) => {
      if (await expireAttempt(trx, a.id, 'PROMPT_EXPIRED', 'prompt_expired', now)) {
        expiredAttempts++;
        await applyTransition(trx, deps, a.session_id, { kind: 'confirmation_abandoned', cause: `momo attempt ${a.id} prompt expired` });
      }
    });
  }
  expiredAttempts += await endDueTransferWindows(db, deps);
  const due = await db
    .selectFrom('checkout_sessions')
    .select('id')
    .where('status', '=', 'open')
    .where('expires_at', '<=', now)
    .limit(500)
    .execute();
  let expiredSessions = 0;
  for (const s of due) {
    if (await db.transaction().execute((trx) => expireIfDue(trx, deps, s.id))) expiredSessions++;
  }
  await expireDueSlips(db, now);
  return { expiredSessions, expiredAttempts };
}

export interface Sweeper {
  stop(): void;
}

/**
 * Runs `sweep` and the `jobs` given (provider reconciliation, …) every `intervalMs`, never
 * two ticks at once, until stopped; also purges idempotency keys hourly.
 */
export function startSweeper(
  db: Db,
  deps: TransitionDeps,
  intervalMs = 1000,
  onError: (err: unknown) => void = () => {},
  jobs: ReadonlyArray<() => Promise<unknown>> = [],
): Sweeper {
  let running = false;
  let lastPurge = 0;
  const tick = async () => {
    if (running) return;
    running = true;
    try {
      // Several instances on one PostgreSQL: one of them sweeps at a time (the others skip the
      // tick). Each move is a conditional update anyway, so this saves work, not correctness.
      await runExclusive(db, 'paydesk:sweeper', async () => {
        await sweep(db, deps);
        for (const job of jobs) await job();
        if (Date.now() - lastPurge > 3_600_000) {
          lastPurge = Date.now();
          await purgeExpiredIdempotencyKeys(db, deps.clock);
        }
      });
    } catch (err) {
      onError(err);
    } finally {
      running = false;
    }
  };
  void tick();
  const timer = setInterval(() => void tick(), intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
