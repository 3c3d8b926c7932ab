import { yieldToLoop } from '../lib/yield-to-loop';

/**
 * The sweep loop, shared by the sweeper and the bank-transfer window (its own module so neither
 * imports the other: the sweeper calls the window's endDueTransferWindows).
 */

export { yieldToLoop };

/** Rows one sweep query takes: small enough that no single query or batch holds the event loop. */
export const SWEEP_BATCH = 200;

/**
 * Takes due rows `SWEEP_BATCH` at a time through `next` (an indexed query) and moves each
 * with `move`, until none are left, a batch moved nothing (rows that will not move must not
 * spin the loop) or the tick's budget is spent. Yields to the event loop between batches.
 */
export async function drain<T>(deadline: number, next: (limit: number) => Promise<T[]>, move: (row: T) => Promise<boolean>): Promise<number> {
  let moved = 0;
  for (;;) {
    const rows = await next(SWEEP_BATCH);
    let batchMoved = 0;
    for (const row of rows) if (await move(row)) batchMoved++;
    moved += batchMoved;
    if (rows.length < SWEEP_BATCH || batchMoved === 0 || performance.now() >= deadline) return moved;
    await yieldToLoop();
  }
}
