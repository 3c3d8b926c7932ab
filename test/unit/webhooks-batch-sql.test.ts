import { describe, expect, it } from 'vitest';
import { padded, padTail, powerOfTwoChunks } from '../../server/modules/webhooks/batch-sql';

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

  it('pads the tail of a parameter list in place, after the leading parameters, and says how long the list part is', () => {
    const params: unknown[] = ['owner', 'now'];
    expect(padTail(params, 2)).toBe(0);
    expect(params).toEqual(['owner', 'now']);
    params.push('a', 'b', 'c');
    expect(padTail(params, 2)).toBe(4);
    expect(params).toEqual(['owner', 'now', 'a', 'b', 'c', 'c']);
    for (let n = 1; n <= 70; n++) {
      const list: unknown[] = ['x', 1, null];
      for (let i = 0; i < n; i++) list.push(`id${i}`);
      const size = padTail(list, 3);
      expect(isPowerOfTwo(size) && size >= n && size < 2 * n).toBe(true);
      expect(list).toHaveLength(3 + size);
      expect(list.slice(0, 3 + n)).toEqual(['x', 1, null, ...Array.from({ length: n }, (_, i) => `id${i}`)]);
      expect(new Set(list.slice(3))).toEqual(new Set(Array.from({ length: n }, (_, i) => `id${i}`)));
    }
    // A Set (distinct ids) pads as its values.
    expect(padded(new Set(['a', 'b', 'a', 'c']))).toEqual(['a', 'b', 'c', 'c']);
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
