import { describe, expect, it } from 'vitest';
import { timeOrderedBase62, uuidV7, uuidV7s } from '../../server/lib/ids';

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

describe('timeOrderedBase62 (webhook delivery and attempt ids)', () => {
  it('is base62 of the asked length, sorts by its millisecond as a string, and is unique within one', () => {
    const t = Date.UTC(2026, 10, 25, 12, 0, 0, 123);
    const ids = [t - 62 ** 3, t - 1, t, t + 1, t + 62, t + 62 ** 5, Date.UTC(2999, 0, 1)].map((ms) => timeOrderedBase62(24, ms));
    for (const id of ids) expect(id).toMatch(/^[0-9A-Za-z]{24}$/);
    // BASE62 is in ASCII order, so string order is time order (what the indexes see).
    expect([...ids].sort()).toEqual(ids);
    const same = Array.from({ length: 1000 }, () => timeOrderedBase62(24, t));
    expect(new Set(same).size).toBe(1000);
    expect(new Set(same.map((id) => id.slice(0, 8))).size).toBe(1);
  });
});
