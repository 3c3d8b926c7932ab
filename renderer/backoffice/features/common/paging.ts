import { MAX_OFFSET } from '../../../../shared/schemas/common';

/**
 * Where a server page sits in its list, from the API's `total` and `total_capped` (issue 18:
 * a list stops counting at LIST_TOTAL_CAP and says "10,000+"). Past a capped total the page's
 * own rows say where it ends, and a short page is the last one. The API serves offsets up to
 * MAX_OFFSET (deeper pages go by cursor or a narrower filter), so Next stops there.
 */
export interface PageSpan {
  total: number;
  /** The API's `total_capped`: it stopped counting at `total`, there are more. */
  capped?: boolean | undefined;
  /** Rows on this page (a capped total needs them to know where the list ends). */
  rows?: number | undefined;
  limit: number;
  offset: number;
}

/** A list's total as the API gives it: "10,000+" when it stopped counting at the cap. */
export const totalLabel = (total: number, capped?: boolean): string => (capped ? `${total.toLocaleString('en')}+` : String(total));

export function pageSpan({ total, capped = false, rows, limit, offset }: PageSpan): { from: number; to: number; of: string; first: boolean; last: boolean } {
  const shown = rows ?? limit;
  return {
    from: total === 0 ? 0 : offset + 1,
    to: capped ? offset + shown : Math.min(total, offset + limit),
    of: totalLabel(total, capped),
    first: offset === 0,
    last: (capped ? shown < limit : offset + limit >= total) || offset + limit > MAX_OFFSET,
  };
}
