import { useEffect, useId, useRef } from 'react';
import { labelsWith } from '../common/labels';
import { useT } from '../../../ui/i18n';
import type { InvoiceDetail } from '../../../../shared/schemas/backoffice';
import { useRouter } from '../../router';
import { useErrorText } from '../common/error-text';
import { formatDateTime } from '../common/format';
import { Card, DataTable, Empty, Money, ShortId, StatusBadge } from '../../../ui/blocks';
import { FINANCE_BASE as BASE } from './finance-base';
import { settlementColumns } from './settlement';

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
  const t = useT();
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
      <Card title={t('finance.invoiceSessions.title')} className="bo-card--flush">
        <Empty title={t('finance.invoiceSessions.empty')} />
      </Card>
    );
  }
  // Sessions created (or removed) since the first page was read: the pages no longer add up.
  const stale = !hasMore && sessions.length !== total;
  return (
    // The whole count up top too: the footer of a long list is a long scroll away.
    <Card title={t('finance.invoiceSessions.title')} actions={<span className="bo-muted">{t('finance.invoiceSessions.count', { total })}</span>} className="bo-card--flush" testId="invoice-sessions">
      <div ref={wrap}>
        <DataTable
          caption={t('finance.invoiceSessions.caption')}
          rows={sessions}
          rowKey={(s) => s.id}
          // Every row read so far on one list: the pages are the API's, not the table's.
          pageSize={sessions.length}
          onRowClick={(s) => navigate(`${BASE}/sessions/${encodeURIComponent(s.id)}`)}
          columns={[
            { key: 'amount', header: t('finance.amount'), align: 'right', render: (s) => <Money minor={s.amount_minor} currency={s.currency} /> },
            ...settlementColumns(t),
            { key: 'status', header: t('finance.status'), render: (s) => <StatusBadge status={s.status} kind="session" /> },
            { key: 'rail', header: t('finance.paidBy'), render: (s) => labelsWith(t).rail(s.paid_rail) },
            { key: 'created', header: t('finance.created'), render: (s) => <time dateTime={s.created_at}>{formatDateTime(s.created_at)}</time> },
            { key: 'id', header: t('finance.session'), render: (s) => <ShortId value={s.id} /> },
          ]}
        />
      </div>
      <div className="bo-pagination" role="group" aria-label={t('finance.invoiceSessions.shown')}>
        {/* A live region: "Show more" is announced by the count it changes. */}
        <span id={countId} className="bo-pagination__count" role="status" data-testid="invoice-sessions-count">
          {t('finance.invoiceSessions.showing', { shown: sessions.length, total })}
        </span>
        {moreError !== null && (
          <span className="bo-field-error" role="alert">
            {t('finance.invoiceSessions.moreFailed', { error: errorText(moreError) })}
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
            {loadingMore ? t('finance.invoiceSessions.loading') : t('finance.invoiceSessions.more')}
          </button>
        )}
        {stale && (
          <button type="button" className="bo-btn bo-btn--secondary bo-btn--sm" onClick={onReload}>
            {t('finance.invoiceSessions.reload')}
          </button>
        )}
      </div>
    </Card>
  );
}
