import { describe, expect, it } from 'vitest';
import { pageSpan, totalLabel } from '../../renderer/backoffice/features/common/paging';

/** What the pager of every server-paged table shows (issue 18: bounded totals). */
describe('back-office pager', () => {
  it('an exact total: "of N", Next until the last row', () => {
    expect(pageSpan({ total: 60, limit: 25, offset: 0, rows: 25 })).toEqual({ from: 1, to: 25, of: '60', first: true, last: false });
    expect(pageSpan({ total: 60, limit: 25, offset: 50, rows: 10 })).toEqual({ from: 51, to: 60, of: '60', first: false, last: true });
    expect(pageSpan({ total: 0, limit: 25, offset: 0, rows: 0 })).toEqual({ from: 0, to: 0, of: '0', first: true, last: true });
  });

  it('a capped total reads "10,000+" and pages on past it until a page comes back short', () => {
    expect(pageSpan({ total: 10_000, capped: true, limit: 25, offset: 0, rows: 25 })).toEqual({ from: 1, to: 25, of: '10,000+', first: true, last: false });
    // At and past the cap the count goes on from the rows actually shown.
    expect(pageSpan({ total: 10_000, capped: true, limit: 25, offset: 9_975, rows: 25 })).toMatchObject({ from: 9_976, to: 10_000, last: false });
    expect(pageSpan({ total: 10_000, capped: true, limit: 25, offset: 10_000, rows: 25 })).toMatchObject({ from: 10_001, to: 10_025, last: false });
    expect(pageSpan({ total: 10_000, capped: true, limit: 25, offset: 12_000, rows: 7 })).toMatchObject({ from: 12_001, to: 12_007, of: '10,000+', last: true });
    expect(totalLabel(5, true)).toBe('5+');
    expect(totalLabel(12_345, false)).toBe('12345');
  });
});
