import { useState } from 'react';
import { MAX_OFFSET } from '../../../../shared/schemas/common';
import { currentLocale } from '../../../ui/i18n';

/**
 * Where a server page sits in its list, from the API's `total` and `total_capped` (a
 * list stops counting at LIST_TOTAL_CAP and says "10,000+"). Past a capped total the page's
 * own rows say where it ends, and a short page is the last one. The API serves offsets up to
 * MAX_OFFSET; deeper pages go by cursor (useListPages), so Next stops there only when the page
 * came without a `next_cursor` (a sort the list pages by offset only).
 */
export interface PageSpan {
  total: number;
  /** The API's `total_capped`: it stopped counting at `total`, there are more. */
  capped?: boolean | undefined;
  /** Rows on this page (a capped total needs them to know where the list ends). */
  rows?: number | undefined;
  limit: number;
  offset: number;
  /** The page's `next_cursor`: Next goes on past MAX_OFFSET with it. */
  nextCursor?: string | null | undefined;
}

/** A list's total as the API gives it: "10,000+" when it stopped counting at the cap. */
export const totalLabel = (total: number, capped?: boolean): string => (capped ? `${total.toLocaleString(currentLocale())}+` : String(total));

export function pageSpan({ total, capped = false, rows, limit, offset, nextCursor }: PageSpan): { from: number; to: number; of: string; first: boolean; last: boolean } {
  const shown = rows ?? limit;
  return {
    from: total === 0 ? 0 : offset + 1,
    to: capped ? offset + shown : Math.min(total, offset + limit),
    of: totalLabel(total, capped),
    first: offset === 0,
    last: (capped ? shown < limit : offset + limit >= total) || (offset + limit > MAX_OFFSET && !nextCursor),
  };
}

/** Where a server-paged list is: the page's offset, and the cursor Next brought it, if any. */
export interface ListPages {
  offset: number;
  /** The cursor of the page at `offset` (the page before it answered `next_cursor`), else undefined. */
  cursor: string | undefined;
  /** Back to the first page, every cursor forgotten (a filter or the sort changed). */
  restart: () => void;
  /** The pager moved to `to`; `next` is the shown page's `next_cursor` (null while it is a placeholder). */
  go: (to: number, next: string | null | undefined) => void;
}

/** The pager's state: the page shown, and the cursors Next brought. */
export interface PagesState {
  offset: number;
  /** The cursor of each page Next opened with one, by that page's offset. */
  cursors: Readonly<Record<number, string>>;
}

/** The pager moved from `s.offset` to `to`, the shown page having answered `next` (pure: useListPages). */
export function movePages(s: PagesState, to: number, next: string | null | undefined, limit: number): PagesState {
  if (to !== s.offset + limit) return { offset: to, cursors: s.cursors };
  const cursors = { ...s.cursors };
  if (next) cursors[to] = next;
  else delete cursors[to];
  return { offset: to, cursors };
}

/**
 * A server-paged list's position: Next keeps the page's `next_cursor` for the page it
 * opens, and that page is then asked for by cursor, so a deep page costs what the first does and
 * the list goes on past MAX_OFFSET; Previous goes back to a page whose cursor (or offset) is
 * already known. A list whose sort has no cursor pages by offset, as before.
 */
export function useListPages(limit: number): ListPages {
  const [state, setState] = useState<PagesState>({ offset: 0, cursors: {} });
  return {
    offset: state.offset,
    cursor: state.cursors[state.offset],
    restart: () => setState({ offset: 0, cursors: {} }),
    go: (to, next) => setState((s) => movePages(s, to, next, limit)),
  };
}

/** The request's position: its cursor when it has one, else its offset (the API refuses both). */
export const pagePosition = (p: { offset: number; cursor?: string | undefined }): { cursor: string } | { offset: number } =>
  p.cursor ? { cursor: p.cursor } : { offset: p.offset };

/** The pager's props for a server-paged list: where it is, and Next keeping the page's cursor. */
export function listPager(pages: ListPages, page: { total: number; capped: boolean; rows: number; limit: number }, next: string | null | undefined) {
  return { ...page, offset: pages.offset, nextCursor: next, onChange: (to: number) => pages.go(to, next) };
}
