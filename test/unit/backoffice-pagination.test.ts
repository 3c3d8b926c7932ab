import { describe, expect, it } from 'vitest';
import { movePages, pagePosition, pageSpan, totalLabel, type PagesState } from '../../renderer/backoffice/features/common/paging';

/** What the pager of every server-paged table shows (bounded totals). */
describe('back-office pager', () => {
  it('an exact total: "of N", Next until the last row', () => {
    expect(pageSpan({ total: 60, limit: 25, offset: 0, rows: 25 })).toEqual({ from: 1, to: 25, of: '60', first: true, last: false });
    expect(pageSpan({ total: 60, limit: 25, offset: 50, rows: 10 })).toEqual({ from: 51, to: 60, of: '60', first: false, last: true });
    expect(pageSpan({ total: 0, limit: 25, offset: 0, rows: 0 })).toEqual({ from: 0, to: 0, of: '0', first: true, last: true });
  });

  it('a capped total reads "10,000+" and pages on until a page comes back short or the API\'s deepest offset', () => {
    expect(pageSpan({ total: 10_000, capped: true, limit: 25, offset: 0, rows: 25 })).toEqual({ from: 1, to: 25, of: '10,000+', first: true, last: false });
    // At and past the cap the count goes on from the rows actually shown.
    expect(pageSpan({ total: 10_000, capped: true, limit: 25, offset: 9_975, rows: 25 })).toMatchObject({ from: 9_976, to: 10_000, last: false });
    expect(pageSpan({ total: 500, capped: true, limit: 25, offset: 500, rows: 25 })).toMatchObject({ from: 501, to: 525, last: false });
    expect(pageSpan({ total: 500, capped: true, limit: 25, offset: 1_200, rows: 7 })).toMatchObject({ from: 1_201, to: 1_207, of: '500+', last: true });
    // The API serves no offset past MAX_OFFSET (10,000): the page at it is the last one Next reaches.
    expect(pageSpan({ total: 10_000, capped: true, limit: 25, offset: 10_000, rows: 25 })).toMatchObject({ from: 10_001, to: 10_025, last: true });
    expect(pageSpan({ total: 20_000, limit: 50, offset: 9_950, rows: 50 })).toMatchObject({ to: 10_000, last: false });
    expect(pageSpan({ total: 20_000, limit: 50, offset: 10_000, rows: 50 })).toMatchObject({ to: 10_050, last: true });
    expect(totalLabel(5, true)).toBe('5+');
    expect(totalLabel(12_345, false)).toBe('12345');
  });

  it('past the API\'s deepest offset Next goes on by the page\'s next_cursor, and stops without one', () => {
    expect(pageSpan({ total: 10_000, capped: true, limit: 25, offset: 10_000, rows: 25, nextCursor: 'c1' })).toMatchObject({ from: 10_001, to: 10_025, last: false });
    expect(pageSpan({ total: 10_000, capped: true, limit: 25, offset: 10_000, rows: 25, nextCursor: null })).toMatchObject({ last: true });
    // The list's own end still ends it, cursor or not.
    expect(pageSpan({ total: 10_000, capped: true, limit: 25, offset: 12_000, rows: 3, nextCursor: 'c2' })).toMatchObject({ to: 12_003, last: true });
  });

  it('Next keeps the cursor it came with for the page it opens; Previous finds the earlier pages\' cursors; a page without one goes by offset', () => {
    const start: PagesState = { offset: 0, cursors: {} };
    const p1 = movePages(start, 25, 'after-25', 25);
    expect(p1).toEqual({ offset: 25, cursors: { 25: 'after-25' } });
    const p2 = movePages(p1, 50, 'after-50', 25);
    expect(pagePosition({ offset: p2.offset, cursor: p2.cursors[p2.offset] })).toEqual({ cursor: 'after-50' });
    const back = movePages(p2, 25, null, 25);
    expect(back.offset).toBe(25);
    expect(back.cursors[back.offset]).toBe('after-25');
    // A page that answered no cursor (a sort the list pages by offset): the next page is asked for by offset, and a stale cursor is dropped.
    const offsetOnly = movePages(back, 50, null, 25);
    expect(offsetOnly.cursors[50]).toBeUndefined();
    expect(pagePosition({ offset: offsetOnly.offset, cursor: offsetOnly.cursors[offsetOnly.offset] })).toEqual({ offset: 50 });
  });
});
