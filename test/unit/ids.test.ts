import { describe, expect, it } from 'vitest';
import { uuidV7, uuidV7s } from '../../server/lib/ids';

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('UUIDv7', () => {
  it('uuidV7s makes n distinct version-7, variant-10 ids carrying the millisecond, as uuidV7 does', () => {
    const now = Date.UTC(2026, 10, 25, 12, 0, 0, 123);
    const one = uuidV7(now);
    const many = uuidV7s(1000, now);
    expect(many).toHaveLength(1000);
    expect(new Set(many).size).toBe(1000);
    for (const id of [one, ...many]) {
      expect(id).toMatch(V7);
      expect(parseInt(id.slice(0, 8) + id.slice(9, 13), 16)).toBe(now);
    }
    // The random part is not a constant: every variant digit and every hex digit of the tail show up.
    expect(new Set(many.map((id) => id[19])).size).toBe(4);
    expect(new Set(many.map((id) => id[35])).size).toBe(16);
    expect(uuidV7s(0, now)).toEqual([]);
  });
});
