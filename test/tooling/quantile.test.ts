import { describe, expect, it } from 'vitest';
import { nearestRank } from '../../bench/quantile';

describe('nearestRank: the percentile every bench line prints', () => {
  const hundred = Array.from({ length: 100 }, (_, i) => i + 1); // 1..100

  it('is the value with at least q of all values at or below it', () => {
    expect(nearestRank(hundred, 0.5)).toBe(50);
    expect(nearestRank(hundred, 0.99)).toBe(99);
    expect(nearestRank(hundred, 0.991)).toBe(100);
    expect(nearestRank(hundred, 1)).toBe(100);
    expect(nearestRank([3, 7, 9], 0.5)).toBe(7);
  });

  it('gives the smallest value at 0, the only value of one, and 0 for none', () => {
    expect(nearestRank(hundred, 0)).toBe(1);
    expect(nearestRank([42], 0.99)).toBe(42);
    expect(nearestRank([], 0.99)).toBe(0);
  });

  it('reads typed arrays as the load generator keeps them', () => {
    const sorted = new Float64Array([0.4, 1.2, 2.5, 9.9]).sort();
    expect(nearestRank(sorted, 0.75)).toBe(2.5);
    expect(nearestRank(sorted, 0.99)).toBe(9.9);
  });
});
