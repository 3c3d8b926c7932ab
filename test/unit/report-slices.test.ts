import { describe, expect, it } from 'vitest';
import { slices } from '../../server/modules/reports/report-jobs';

/** A report built whole is sent in pieces, each encoded to UTF-8 on its own: no piece may end on half a character. */
describe('report slices', () => {
  const pieces = async (text: string, size: number) => {
    const out: string[] = [];
    for await (const piece of slices(Promise.resolve(text), size)) out.push(piece);
    return out;
  };

  it('never cuts a surrogate pair, so the pieces encoded one by one are the bytes of the whole text', async () => {
    const text = `abc👩🏾‍💼Ɔ${'x'.repeat(5)}😀`;
    for (let size = 2; size <= 8; size++) {
      const got = await pieces(text, size);
      expect(got.join('')).toBe(text);
      expect(got.every((p) => p.length > 0 && p.length <= size)).toBe(true);
      expect(Buffer.concat(got.map((p) => Buffer.from(p))).equals(Buffer.from(text))).toBe(true);
    }
  });

  it('an empty text is one empty piece', async () => {
    expect(await pieces('', 4)).toEqual(['']);
  });
});
