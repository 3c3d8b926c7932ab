import { describe, expect, it } from 'vitest';
import { estimatedMatches, rareWord, SAMPLE_ROWS } from '../../server/db/search/postgres-words';

/** PostgreSQL's trigram search asks its index for the rarest word of a text when one is rare (`server/db/search/postgres-words.ts`). */
describe('rareWord', () => {
  // A sample where every name shares "payer" and numbers are spread out, as in the volume bench.
  const sample = Array.from({ length: SAMPLE_ROWS }, (_, i) => `payer ${i * 37} inv-${i}`);

  it('picks the rare word of a text whose other word every payer shares', () => {
    expect(rareWord('Payer 999993', sample)).toBe('999993');
    expect(rareWord('PAYER 12345 x', sample)).toBe('12345');
  });

  it('keeps the whole text when every word is common, for one word, or without a usable sample', () => {
    expect(rareWord('Payer 1', sample)).toBeNull(); // "1" is too short for a trigram, "payer" is everywhere
    expect(rareWord('payer inv', sample)).toBeNull();
    expect(rareWord('999993', sample)).toBeNull();
    expect(rareWord('Payer 999993', sample.slice(0, 10))).toBeNull();
    expect(rareWord('ab cd', sample)).toBeNull();
  });
});

/** The same sample says how many sessions a text finds: a broad one is read day by day (server/db/search/). */
describe('estimatedMatches', () => {
  const sample = Array.from({ length: SAMPLE_ROWS }, (_, i) => `payer ${i} inv-${i}`);

  it('scales the share of the sample containing the text (any case) to the table', () => {
    expect(estimatedMatches('PAYER', sample, 1_000_000)).toBe(1_000_000);
    expect(estimatedMatches('Payer 1', sample, 1_000_000)).toBe((1_111 / SAMPLE_ROWS) * 1_000_000); // 1, 10–19, 100–199, 1000–1999
    expect(estimatedMatches('nobody', sample, 1_000_000)).toBe(0);
  });

  it('knows nothing without a usable sample', () => {
    expect(estimatedMatches('payer', sample.slice(0, 10), 1_000_000)).toBe(0);
    expect(estimatedMatches('payer', [], 0)).toBe(0);
  });
});
