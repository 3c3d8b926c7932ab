import { describe, expect, it } from 'vitest';
import { randomIds, timeOrderedBase62, timeOrderedSecretBase62, uuidV7, uuidV7s } from '../../server/lib/ids';

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

describe('timeOrderedSecretBase62 (checkout session ids: capabilities written in time order)', () => {
  const t = Date.UTC(2026, 10, 25, 12, 0, 0, 120);

  it('is base62 of the asked length and sorts by its 4 ms step as a string, from 1970 to 2416', () => {
    const times = [0, t - 62 ** 4 * 4, t - 4, t, t + 4, t + 62 * 4, t + 86_400_000, Date.UTC(2416, 0, 1)];
    const ids = times.map((ms) => timeOrderedSecretBase62(24, ms));
    for (const id of ids) expect(id).toMatch(/^[0-9A-Za-z]{24}$/);
    expect([...ids].sort()).toEqual(ids);
    // Within one 4 ms step the prefix is the same: the order there is the random part's.
    expect(timeOrderedSecretBase62(24, t).slice(0, 7)).toBe(timeOrderedSecretBase62(24, t + 3).slice(0, 7));
  });

  it('keeps 17 random characters at 24 (101 bits), and refuses to keep fewer than 16 (95 bits)', () => {
    const same = Array.from({ length: 2000 }, () => timeOrderedSecretBase62(24, t));
    expect(new Set(same).size).toBe(2000);
    expect(new Set(same.map((id) => id.slice(0, 7))).size).toBe(1);
    // Every one of the 17 trailing positions takes many of the 62 characters: none is fixed by the time.
    for (let i = 7; i < 24; i++) expect(new Set(same.map((id) => id[i])).size, `position ${i}`).toBeGreaterThan(55);
    expect(timeOrderedSecretBase62(23, t)).toHaveLength(23);
    expect(() => timeOrderedSecretBase62(22, t)).toThrow(/16 random characters/);
  });

  it('randomIds.timeToken is prefix_ plus those characters, timeUuid a UUIDv7 of the given millisecond', () => {
    const id = randomIds.timeToken('cs_test', 24, t);
    expect(id).toMatch(/^cs_test_[0-9A-Za-z]{24}$/);
    expect(id.slice(8, 15)).toBe(timeOrderedSecretBase62(24, t).slice(0, 7));
    const u = randomIds.timeUuid(t);
    expect(u).toMatch(V7);
    expect(parseInt(u.slice(0, 8) + u.slice(9, 13), 16)).toBe(t);
  });
});
