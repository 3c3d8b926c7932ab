import { cpuUsage } from 'node:process';

/**
 * How fast this machine runs the tests now, measured once per process: a fixed piece of CPU
 * work is timed on the wall clock and on the process's own CPU clock. On an idle machine the two
 * agree; on a busy one (more runnable processes than cores) the process gets a share of a core
 * and the wall clock runs ahead by the inverse of that share. Drill budgets are their quiet-machine
 * figures times this factor, so a loaded machine gets the time its measured rate needs and an
 * idle one keeps the tight bound. The assertions themselves do not change.
 */
function measure(): number {
  const cpuTarget = 60_000; // µs of CPU: long enough to span several scheduler slices
  const wall0 = performance.now();
  const cpu0 = cpuUsage();
  let x = 0;
  for (;;) {
    for (let i = 0; i < 100_000; i++) x = (x * 31 + i) | 0;
    const used = cpuUsage(cpu0);
    if (used.user + used.system >= cpuTarget) {
      const wallUs = (performance.now() - wall0) * 1000;
      return x === 0.5 ? 1 : wallUs / (used.user + used.system); // `x` read so the loop is kept
    }
  }
}

const override = Number(process.env.PAYDESK_TEST_PACE);
/** Wall time per CPU time, at least 1, at most 8 (PAYDESK_TEST_PACE sets it outright). */
export const PACE = Number.isFinite(override) && override > 0 ? override : Math.min(8, Math.max(1, measure()));

/**
 * The pace measured again now, never below the one measured at start: for a test whose budget
 * must fit the load at the moment it runs (other test files, another suite beside it), not the
 * load when its file was imported.
 */
export const paceNow = (): number => (Number.isFinite(override) && override > 0 ? override : Math.max(PACE, Math.min(8, measure())));

/** A quiet-machine time budget in ms, scaled to the measured pace. */
export const budget = (quietMs: number): number => Math.round(quietMs * PACE);

/**
 * A pace to budget a test of a minute or more by: on a busy machine (a measured pace above 1.5)
 * twice the measurement, at most 8. The pace is a snapshot, and the load on a shared machine
 * (another suite, a browser starting) moves by that much within a test; a budget exists to stop a
 * hung test, not to time a slow one.
 */
export const withHeadroom = (pace: number): number => (pace > 1.5 ? Math.min(8, 2 * pace) : pace);

/** A quiet-machine time budget in ms, scaled to the pace measured now (paceNow), with headroom. */
export const budgetNow = (quietMs: number): number => Math.round(quietMs * withHeadroom(paceNow()));

/**
 * Waits until this process runs at full speed (a measured pace of at most 1.25) or `maxMs` has
 * passed, whichever comes first: for a measurement that a passing burst of other work would spoil.
 */
export async function waitForCalm(maxMs: number): Promise<void> {
  const until = performance.now() + maxMs;
  while (performance.now() < until && measure() > 1.25) await new Promise((resolve) => setTimeout(resolve, 500));
}
