import { useEffect, useId, useRef } from 'react';
import type { InvoiceDetail } from '../../../../shared/schemas/backoffice';
import { useRouter } from '../../router';
import { useErrorText } from '../common/error-text';
import { formatDateTime, railLabel } from '../common/format';
import { Card, DataTable, Empty, Money, ShortId, StatusBadge } from '../../../ui/blocks';
import { FINANCE_BASE as BASE } from './finance-base';

/**
 * An invoice's sessions as the API pages them: newest first, one page at a time, "Show more"
 * appending the next. The table does not sort: re-ordering only the rows loaded so far would
 * pass for the invoice's order when it is not.
 */
export function InvoiceSessions({
  pages,
  hasMore,
  loadingMore,
  moreError,
  onMore,
  onReload,
}: {
  pages: InvoiceDetail[];
  hasMore: boolean;
  loadingMore: boolean;
  /** Why the last "Show more" failed (the pages already read stay on screen). */
  moreError: unknown;
  onMore: () => void;
  onReload: () => void;
}) {
  const errorText = useErrorText();
  const { navigate } = useRouter();
  const countId = useId();
  const wrap = useRef<HTMLDivElement>(null);
  // How many rows were on screen when "Show more" was pressed: the first new row's index.
  const askedAt = useRef<number | null>(null);
  const sessions = pages.flatMap((p) => p.sessions);
  const total = pages[pages.length - 1]?.sessions_total ?? sessions.length;

  useEffect(() => {
    const from = askedAt.current;
    if (from === null || sessions.length <= from) return;
    askedAt.current = null;
    // With the last page the button goes away; rather than leave focus on nothing, it moves to
    // the first row just added (while more remain it stays on the button, for the next page).
    const focused = document.activeElement;
    if (!hasMore && (focused === null || focused === document.body)) wrap.current?.querySelectorAll<HTMLElement>('tbody tr')[from]?.focus();
  }, [sessions.length, hasMore]);

  if (sessions.length === 0) {
    return (
      <Card title="Sessions" className="bo-card--flush">
        <Empty title="No checkout session for this invoice yet" />
      </Card>
    );
  }
  // Sessions created (or removed) since the first page was read: the pages no longer add up.
  const stale = !hasMore && sessions.length !== total;
  const noun = total === 1 ? 'session' : 'sessions';
  return (
    // The whole count up top too: the footer of a long list is a long scroll away.
    <Card title="Sessions" actions={<span className="bo-muted">{`${total} ${noun}, newest first`}</span>} className="bo-card--flush" testId="invoice-sessions">
      <div ref={wrap}>
        <DataTable
          caption="Sessions of this invoice, newest first"
          rows={sessions}
          rowKey={(s) => s.id}
          // Every row read so far on one list: the pages are the API's, not the table's.
          pageSize={sessions.length}
          onRowClick={(s) => navigate(`${BASE}/sessions/${encodeURIComponent(s.id)}`)}
          columns={[
            { key: 'amount', header: 'Amount', align: 'right', render: (s) => <Money minor={s.amount_minor} currency={s.currency} /> },
            { key: 'status', header: 'Status', render: (s) => <StatusBadge status={s.status} kind="session" /> },
            { key: 'rail', header: 'Paid by', render: (s) => railLabel(s.paid_rail) },
            { key: 'created', header: 'Created', nowrap: true, render: (s) => formatDateTime(s.created_at) },
            { key: 'id', header: 'Session', render: (s) => <ShortId value={s.id} /> },
          ]}
        />
      </div>
      <div className="bo-pagination" role="group" aria-label="Sessions shown">
        {/* A live region: "Show more" is announced by the count it changes. */}
        <span id={countId} className="bo-pagination__count" role="status" data-testid="invoice-sessions-count">
          Showing {sessions.length} of {total} {noun}
        </span>
        {moreError !== null && (
          <span className="bo-field-error" role="alert">
            More sessions could not be loaded: {errorText(moreError)}
          </span>
        )}
        {hasMore && (
          <button
            type="button"
            className="bo-btn bo-btn--secondary bo-btn--sm"
            aria-describedby={countId}
            // aria-disabled, not disabled: a disabled button drops keyboard focus to the page.
            aria-disabled={loadingMore || undefined}
            onClick={() => {
              if (loadingMore) return;
              askedAt.current = sessions.length;
              onMore();
            }}
          >
            {loadingMore ? 'Loading…' : 'Show more'}
          </button>
        )}
        {stale && (
          <button type="button" className="bo-btn bo-btn--secondary bo-btn--sm" onClick={onReload}>
            Reload the list
          </button>
        )}
      </div>
    </Card>
  );
}
