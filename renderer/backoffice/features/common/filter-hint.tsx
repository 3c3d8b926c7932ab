import { Empty } from '../../../ui/blocks';

/**
 * One wording for every filtered list that comes back empty, so the hint reads the same on
 * finance, invoices, audit and webhooks.
 */
export const NO_MATCH_TITLE = 'Nothing matches these filters';
export const NO_MATCH_HINT = 'Clear a filter or widen the dates to see more.';

export function NoMatch() {
  return <Empty title={NO_MATCH_TITLE}>{NO_MATCH_HINT}</Empty>;
}
