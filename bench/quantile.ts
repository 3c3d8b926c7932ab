/**
 * The q-quantile of ascending values by the nearest-rank definition: the smallest value with at
 * least q of all values at or below it (the ceil(q·n)-th, counting from 1); 0 when there are none.
 * Every percentile the benches print is this one, so a p99 means the same in every line.
 */
export function nearestRank(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length)));
  return sorted[rank - 1]!;
}
