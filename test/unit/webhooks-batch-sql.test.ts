import { describe, expect, it } from 'vitest';
import { padded, powerOfTwoChunks } from '../../server/modules/webhooks/batch-sql';

const isPowerOfTwo = (n: number) => n > 0 && (n & (n - 1)) === 0;

describe('webhook batch SQL shapes', () => {
  it('pads an in-list to the next power of two with values it already has', () => {
    expect(padded([])).toEqual([]);
    expect(padded(['a'])).toEqual(['a']);
    expect(padded(['a', 'b', 'c'])).toEqual(['a', 'b', 'c', 'c']);
    for (let n = 1; n <= 130; n++) {
      const values = Array.from({ length: n }, (_, i) => `id${i}`);
      const out = padded(values);
      expect(isPowerOfTwo(out.length)).toBe(true);
      expect(out.length).toBeLessThan(2 * n);
      expect(out.slice(0, n)).toEqual(values);
      expect(new Set(out)).toEqual(new Set(values));
    }
  });

  it('splits rows into power-of-two chunks of at most max, every row once and in order', () => {
    expect(powerOfTwoChunks([])).toEqual([]);
    for (let n = 1; n <= 100; n++) {
      const rows = Array.from({ length: n }, (_, i) => i);
      const chunks = powerOfTwoChunks(rows, 32);
      expect(chunks.flat()).toEqual(rows);
      for (const c of chunks) expect(isPowerOfTwo(c.length) && c.length <= 32).toBe(true);
    }
    // 20 rows: one 16-row insert and one 4-row insert.
    expect(powerOfTwoChunks(Array.from({ length: 20 }, (_, i) => i)).map((c) => c.length)).toEqual([16, 4]);
  });
});
