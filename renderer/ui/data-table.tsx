import { useState, type ReactNode } from 'react';
import { useT } from './i18n';
import { pageSpan, type PageSpan } from '../backoffice/features/common/paging';

/** The back office's one table and its pager (blocks.tsx re-exports them with the other building blocks). */

export interface Column<T> {
  key: string;
  header: string;
  render: (row: T) => ReactNode;
  /** Server-side sort key (with `onSort`); the header becomes a sort button. */
  sortKey?: string;
  /** Client-side sort value (lists the API returns whole); the header becomes a sort button. */
  sortValue?: (row: T) => string | number | null | undefined;
  align?: 'left' | 'right';
  width?: string;
  /** Keep the cell on one line (dates, amounts, codes). */
  nowrap?: boolean;
  /**
   * The header is for screen readers only (a column of row actions): every data cell keeps a
   * header (axe td-has-header), and the phone card layout shows no label for it.
   */
  hideHeader?: boolean;
  /**
   * Shown only where the table has room (a screen 1600 px wide or more, and on phones' cards):
   * a column whose value the row's detail also shows, so that a laptop's table fits its box.
   */
  wide?: boolean;
}

export interface SortState {
  key: string;
  dir: 'asc' | 'desc';
}

/** Server-side pages: the API's total (and `total_capped`: paging.ts), the page's rows and the current limit/offset. */
export interface PageState extends PageSpan {
  onChange: (offset: number) => void;
}

const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });
function compareValues(a: string | number | null | undefined, b: string | number | null | undefined): number {
  // Empty values last in either direction is surprising; keep them "smallest" like SQL's NULLs.
  if (a === b) return 0;
  if (a === null || a === undefined) return -1;
  if (b === null || b === undefined) return 1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return collator.compare(String(a), String(b));
}

/**
 * The one table of the back office: sortable headers (`aria-sort`, keyboard-operable buttons)
 * and pagination, the same everywhere.
 *
 * - Server mode: columns carry `sortKey`, the screen passes `sort` + `onSort` and `page`
 *   (the API's total, limit and offset) and asks the API for that order and page.
 * - Client mode (lists the API returns whole and small): columns carry `sortValue`; the
 *   table sorts and pages itself, `pageSize` rows a page, starting from `defaultSort`.
 */
export function DataTable<T>({
  columns,
  rows,
  rowKey,
  sort: serverSort,
  onSort,
  page,
  pageSize = 10,
  defaultSort,
  onRowClick,
  caption,
  testId,
}: {
  columns: Column<T>[];
  rows: T[];
  rowKey: (row: T) => string;
  sort?: SortState;
  onSort?: (s: SortState) => void;
  page?: PageState;
  pageSize?: number;
  defaultSort?: SortState;
  onRowClick?: (row: T) => void;
  caption?: string;
  testId?: string;
}) {
  const server = onSort !== undefined;
  const [localSort, setLocalSort] = useState<SortState | undefined>(defaultSort);
  const [localOffset, setLocalOffset] = useState(0);
  const t = useT();
  const sort = server ? serverSort : localSort;
  const sortKeyOf = (c: Column<T>): string | undefined => (server ? c.sortKey : c.sortValue ? c.key : undefined);

  let shown = rows;
  let pager: PageState | undefined = page;
  if (!server) {
    const col = sort ? columns.find((c) => c.key === sort.key && c.sortValue) : undefined;
    if (col && sort) {
      const value = col.sortValue!;
      const sign = sort.dir === 'asc' ? 1 : -1;
      shown = [...rows].sort((a, b) => sign * compareValues(value(a), value(b)));
    }
    if (!page) {
      // Rows can shrink under the current page (a filter, a refetch): stay on the last one.
      const offset = localOffset >= shown.length ? Math.max(0, Math.floor((shown.length - 1) / pageSize) * pageSize) : localOffset;
      if (shown.length > pageSize) pager = { total: shown.length, limit: pageSize, offset, onChange: setLocalOffset };
      shown = shown.slice(offset, offset + pageSize);
    }
  }
  const changeSort = (key: string) => {
    const next: SortState = { key, dir: sort?.key === key && sort.dir === 'desc' ? 'asc' : 'desc' };
    if (server) onSort(next);
    else {
      setLocalSort(next);
      setLocalOffset(0);
    }
  };

  return (
    <>
      {/* Focusable, so a keyboard user can scroll a table wider than the screen. */}
      <div className="bo-table-wrap" tabIndex={0} role="region" aria-label={caption ?? t('common.table')}>
        <table className="bo-table" data-testid={testId}>
          {caption && <caption className="bo-visually-hidden">{caption}</caption>}
          <thead>
            <tr>
              {columns.map((c) => {
                const key = sortKeyOf(c);
                const active = key !== undefined && sort?.key === key;
                return (
                  <th
                    key={c.key}
                    scope="col"
                    className={[c.align === 'right' ? 'bo-num' : '', c.wide ? 'bo-col--wide' : ''].filter(Boolean).join(' ') || undefined}
                    aria-sort={active ? (sort.dir === 'asc' ? 'ascending' : 'descending') : key !== undefined ? 'none' : undefined}
                  >
                    {key !== undefined ? (
                      <button type="button" className="bo-sort" onClick={() => changeSort(key)}>
                        {c.header}
                        <span className="bo-sort__arrow" aria-hidden="true">
                          {active ? (sort.dir === 'asc' ? '▲' : '▼') : '↕'}
                        </span>
                      </button>
                    ) : c.hideHeader ? (
                      <span className="bo-visually-hidden">{c.header}</span>
                    ) : (
                      c.header
                    )}
                  </th>
                );
              })}
            </tr>
          </thead>
          <tbody>
            {shown.map((row) => (
              <tr
                key={rowKey(row)}
                className={onRowClick ? 'bo-row--link' : undefined}
                onClick={onRowClick ? () => onRowClick(row) : undefined}
                onKeyDown={onRowClick ? (e) => e.key === 'Enter' && e.target === e.currentTarget && onRowClick(row) : undefined}
                tabIndex={onRowClick ? 0 : undefined}
              >
                {columns.map((c) => (
                  <td key={c.key} data-label={c.hideHeader ? undefined : c.header || undefined} className={[c.align === 'right' ? 'bo-num' : '', c.nowrap ? 'bo-nowrap' : '', c.wide ? 'bo-col--wide' : ''].filter(Boolean).join(' ') || undefined}>
                    {c.render(row)}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {pager && <Pagination {...pager} />}
    </>
  );
}

export function Pagination({ onChange, ...page }: PageState) {
  const t = useT();
  const { from, to, of, first, last } = pageSpan(page);
  const { limit, offset } = page;
  return (
    // A group, not a landmark: a screen may hold several paged tables, and landmarks must be unique.
    <div className="bo-pagination" role="group" aria-label={t('common.pages')}>
      <span className="bo-pagination__count">{t('common.pageRange', { from: String(from), to: String(to), total: of })}</span>
      <button type="button" className="bo-btn bo-btn--secondary bo-btn--sm" disabled={first} onClick={() => onChange(Math.max(0, offset - limit))}>
        {t('common.previous')}
      </button>
      <button type="button" className="bo-btn bo-btn--secondary bo-btn--sm" disabled={last} onClick={() => onChange(offset + limit)}>
        {t('common.next')}
      </button>
    </div>
  );
}
