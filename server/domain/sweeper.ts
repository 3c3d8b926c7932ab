import type { Db } from '../db/database';
import { runExclusive } from '../db/leader';
import { applyTransition, expireIfDue, type TransitionDeps } from './session-transitions';
import { purgeExpiredIdempotencyKeys } from '../modules/idempotency/idempotency.service';
import { endDueTransferWindows } from './bank-transfer-window';
import { expireAttempt } from './attempt-transitions';
import { expireDueSlips } from './slip-transitions';
import { drain, yieldToLoop } from './batches';

export { SWEEP_BATCH } from './batches';
/** Wall time one tick may spend on a backlog before leaving the rest to the next tick (not the injected clock: this bounds real work). */
export const SWEEP_BUDGET_MS = 50;

/**
 * Time-driven moves, run every second by the server (and at start-up, so a restart loses
 * nothing): open sessions past expires_at → expired; Mobile Money prompts past their expiry
 * → attempt expired and session back to open; bank-transfer windows that ended → attempt
 * expired and session back to open (or expired); slips past expiry → expired.
 * Every query is a range on a partial index of the rows still due (migration 0013,
 * test/integration/query-plans.test.ts), in batches of SWEEP_BATCH, so a tick costs the
 * same at a million sessions as at none.
 */
export async function sweep(db: Db, deps: TransitionDeps, budgetMs = SWEEP_BUDGET_MS): Promise<{ expiredSessions: number; expiredAttempts: number }> {
  const now = deps.clock.now().toISOString();
  const deadline = performance.now() + budgetMs;
  let expiredAttempts = await drain(
    deadline,
    (limit) =>
      db
        .selectFrom('payment_attempts')
        .select(['id', 'session_id'])
        .where('status', '=', 'pending')
        .where('prompt_expires_at', '<=', now)
        .where('rail', '=', 'momo')
        .where('raw_status', '=', 'PROMPT_SENT')
        .limit(limit)
        .execute(),
    (a) =>
      db.transaction().execute(async (trx) => {
        if (!(await expireAttempt(trx, a.id, 'PROMPT_EXPIRED', 'prompt_expired', now))) return false;
        await applyTransition(trx, deps, a.session_id, { kind: 'confirmation_abandoned', cause: `momo attempt ${a.id} prompt expired` });
        return true;
      }),
  );
  expiredAttempts += await endDueTransferWindows(db, deps, deadline);
  const expiredSessions = await drain(
    deadline,
    (limit) => db.selectFrom('checkout_sessions').select('id').where('status', '=', 'open').where('expires_at', '<=', now).limit(limit).execute(),
    (s) => db.transaction().execute((trx) => expireIfDue(trx, deps, s.id)),
  );
  await drain(
    deadline,
    async (limit) => {
      const due = await db.selectFrom('cash_slips').select('id').where('status', '=', 'active').where('expires_at', '<=', now).limit(limit).execute();
      await expireDueSlips(db, due.map((r) => r.id), now);
      return due;
    },
    async () => true,
  );
  return { expiredSessions, expiredAttempts };
}

export interface Sweeper {
  stop(): void;
}

/**
 * Runs `sweep` and the `jobs` given (provider reconciliation, …) every `intervalMs`, never
 * two ticks at once, until stopped; also purges idempotency keys hourly. The event loop runs
 * between the sweep and each job: on SQLite their queries are synchronous, and run back to back
 * they held it for the sum of them (issue 18: 10-12 ms of CPU at the median, up to 27 ms, at a
 * million sessions under mixed load; bench/stall-trace.ts).
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
        for (const job of jobs) {
          await yieldToLoop();
          await job();
        }
        if (Date.now() - lastPurge > 3_600_000) {
          lastPurge = Date.now();
          await yieldToLoop();
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
