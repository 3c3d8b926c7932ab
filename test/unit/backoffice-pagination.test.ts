import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { Pagination, type PageState } from '../../renderer/backoffice/features/common/ui';

/** The pager of every server-paged table, as the HTML it renders (issue 18: bounded totals). */
function pager(state: Omit<PageState, 'onChange'>): { count: string; previous: boolean; next: boolean } {
  const html = renderToStaticMarkup(createElement(Pagination, { ...state, onChange: () => undefined }));
  const count = /bo-pagination__count">([^<]*)</.exec(html)?.[1] ?? '';
  // Enabled: the button is there and carries no `disabled` attribute.
  const button = (name: string) => {
    const attrs = new RegExp(`<button([^>]*)>${name}</button>`).exec(html)?.[1];
    if (attrs === undefined) throw new Error(`no ${name} button in ${html}`);
    return !/\bdisabled\b/.test(attrs);
  };
  return { count: count.replace(/<!-- -->/g, ''), previous: button('Previous'), next: button('Next') };
}

describe('back-office pager', () => {
  it('an exact total: "of N", Next until the last row', () => {
    expect(pager({ total: 60, limit: 25, offset: 0, rows: 25 })).toEqual({ count: '1–25 of 60', previous: false, next: true });
    expect(pager({ total: 60, limit: 25, offset: 50, rows: 10 })).toEqual({ count: '51–60 of 60', previous: true, next: false });
  });

  it('a capped total reads "10,000+" and pages on past it until a page comes back short', () => {
    expect(pager({ total: 10_000, capped: true, limit: 25, offset: 0, rows: 25 })).toEqual({ count: '1–25 of 10,000+', previous: false, next: true });
    // At and past the cap the count goes on from the rows actually shown.
    expect(pager({ total: 10_000, capped: true, limit: 25, offset: 9_975, rows: 25 })).toEqual({ count: '9976–10000 of 10,000+', previous: true, next: true });
    expect(pager({ total: 10_000, capped: true, limit: 25, offset: 10_000, rows: 25 })).toEqual({ count: '10001–10025 of 10,000+', previous: true, next: true });
    expect(pager({ total: 10_000, capped: true, limit: 25, offset: 12_000, rows: 7 })).toEqual({ count: '12001–12007 of 10,000+', previous: true, next: false });
  });
});
