import { describe, expect, it } from 'vitest';
import { csvCell } from '../../server/lib/csv';

describe('CSV cells a spreadsheet would run as formulas are written as text', () => {
  it.each([
    ['=HYPERLINK("http://x")'],
    ['+1+1'],
    ['-2+3'],
    ['@SUM(A1)'],
    [' =1+1'],
    ['\u00a0=1+1'],
    ['\u200b=1+1'],
    ['\ufeff@SUM(A1)'],
    ['\n=1+1'],
    ['\r\n+1'],
    ['\t=1'],
    ['\uff1d1+1'],
    ['  \u3000\uff0b1'],
  ])('%j starts with a quote mark', (text) => {
    const cell = csvCell(text);
    const inner = cell.startsWith('"') ? cell.slice(1, -1).replace(/""/g, '"') : cell;
    expect(inner).toBe(`'${text}`);
  });

  it.each([['Ama Mensah'], ['INV-1'], [' plain'], ['a=b'], ['e-mail']])('%j is left as it is', (text) => {
    expect(csvCell(text)).toBe(text);
  });
});
