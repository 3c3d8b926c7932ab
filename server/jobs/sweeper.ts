import { sql } from 'kysely';
import type { Db } from '../db/database';
import { runExclusive } from '../db/leader';
import { applyTransition, expireIfDue, type TransitionDeps } from '../domain/session-transitions';
import { purgeExpiredIdempotencyKeys } from '../modules/idempotency';
import { dueTransferWindows, endDueTransferWindows } from '../domain/bank-transfer-window';
import { expireAttempt } from '../domain/attempt-transitions';
import { expireDueSlips } from '../domain/slip-transitions';
import { drain, yieldToLoop } from './batches';
import { sweeperTickSeconds } from '../observe';

export { SWEEP_BATCH } from './batches';
/** Wall time one tick may spend on a backlog before leaving the rest to the next tick (not the injected clock: this bounds real work). */
const SWEEP_BUDGET_MS = 50;

/** The rows each move of the tick takes, due at `now`: each a range on a partial index of the rows still due (migration 0013). */
const due = {
  prompts: (db: Db, now: string) =>
    db.selectFrom('payment_attempts').where('status', '=', 'pending').where('prompt_expires_at', '<=', now).where('rail', '=', 'momo').where('raw_status', '=', 'PROMPT_SENT'),
  transfers: dueTransferWindows,
  sessions: (db: Db, now: string) => db.selectFrom('checkout_sessions').where('status', '=', 'open').where('expires_at', '<=', now),
  slips: (db: Db, now: string) => db.selectFrom('cash_slips').where('status', '=', 'active').where('expires_at', '<=', now),
};
type Due = Record<keyof typeof due, boolean>;
const one = sql.lit(1).as('one');

/**
 * Which moves have a row due, in one statement: a tick with nothing due (most of them) is one
 * round trip, not one per move (on PostgreSQL the four empty queries took up to 5.5 ms
 * at a million sessions on a slow machine).
 */
async function whatIsDue(db: Db, now: string): Promise<Due> {
  const row = await db
    .selectNoFrom((eb) => [
      eb.exists(due.prompts(db, now).select(one)).as('prompts'),
      eb.exists(due.transfers(db, now).select(one)).as('transfers'),
      eb.exists(due.sessions(db, now).select(one)).as('sessions'),
      eb.exists(due.slips(db, now).select(one)).as('slips'),
    ])
    .executeTakeFirstOrThrow();
  // SQLite answers EXISTS with 0 or 1, PostgreSQL with a boolean.
  return Object.fromEntries(Object.entries(row).map(([k, v]) => [k, Boolean(v)])) as Due;
}

/**
 * Time-driven moves, run every second by the server (and at start-up, so a restart loses
 * nothing): open sessions past expires_at → expired; Mobile Money prompts past their expiry
 * → attempt expired and session back to open; bank-transfer windows that ended → attempt
 * expired and session back to open (or expired); slips past expiry → expired.
 * One statement asks which moves have rows due (whatIsDue); each due move then takes them in
 * batches of SWEEP_BATCH. Every query is a range on a partial index of the rows still due
 * (migration 0013, test/integration/query-plans-sweeper.test.ts), so a tick costs the same at a
 * million sessions as at none.
 */
export async function sweep(db: Db, deps: TransitionDeps, budgetMs = SWEEP_BUDGET_MS): Promise<{ expiredSessions: number; expiredAttempts: number }> {
  const now = deps.clock.now().toISOString();
  const deadline = performance.now() + budgetMs;
  const todo = await whatIsDue(db, now);
  let expiredAttempts = 0;
  if (todo.prompts) {
    expiredAttempts += await drain(
      deadline,
      (limit) => due.prompts(db, now).select(['id', 'session_id']).limit(limit).execute(),
      (a) =>
        db.transaction().execute(async (trx) => {
          if (!(await expireAttempt(trx, a.id, 'PROMPT_EXPIRED', 'prompt_expired', now))) return false;
          await applyTransition(trx, deps, a.session_id, { kind: 'confirmation_abandoned', cause: `momo attempt ${a.id} prompt expired` });
          return true;
        }),
    );
  }
  if (todo.transfers) expiredAttempts += await endDueTransferWindows(db, deps, deadline);
  const expiredSessions = !todo.sessions
    ? 0
    : await drain(
        deadline,
        (limit) => due.sessions(db, now).select('id').limit(limit).execute(),
        (s) => db.transaction().execute((trx) => expireIfDue(trx, deps, s.id)),
      );
  if (todo.slips) {
    await drain(
      deadline,
      async (limit) => {
        const rows = await due.slips(db, now).select('id').limit(limit).execute();
        await expireDueSlips(db, rows.map((r) => r.id), now);
        return rows;
      },
      async () => true,
    );
  }
  return { expiredSessions, expiredAttempts };
}

export interface Sweeper {
  stop(): void;
}

/**
 * Runs `sweep` and the `jobs` given (provider reconciliation, …) every `intervalMs`, never
 * two ticks at once, until stopped; also purges idempotency keys hourly. The event loop runs
 * between the sweep and each job: on SQLite their queries are synchronous, and run back to back
 * they held it for the sum of them (10-12 ms of CPU at the median, up to 27 ms, at a
 * million sessions under mixed load).
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
    const endTimer = sweeperTickSeconds.startTimer();
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
      endTimer();
      running = false;
    }
  };
  void tick();
  const timer = setInterval(() => void tick(), intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
