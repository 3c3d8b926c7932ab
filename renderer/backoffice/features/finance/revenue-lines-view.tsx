import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useT } from '../../../ui/i18n';
import { useApi } from '../common/api';
import { useErrorText } from '../common/error-text';
import { formatDateTime } from '../common/format';
import { Card, DataTable, Empty, Mono, QueryState, StatusBadge } from '../../../ui/blocks';
import { ConfirmDialog } from '../common/confirm-dialog';
import { Stat } from './finance-base';
import { financeQueries, setRevenueLineActive } from './finance.queries';

export function RevenueLinesViewPanel({ merchantId }: { merchantId: string | undefined }) {
  const errorText = useErrorText();
  const t = useT();
  const api = useApi();
  const queryClient = useQueryClient();
  const lines = useQuery(financeQueries.revenueLines(api, merchantId));
  const [error, setError] = useState<string | null>(null);
  const [confirming, setConfirming] = useState<{ id: string; code: string; name: string } | null>(null);
  const toggle = useMutation({
    mutationFn: ({ id, active }: { id: string; active: boolean }) => setRevenueLineActive(api, merchantId, id, active),
    onSuccess: (view) => {
      setError(null);
      setConfirming(null);
      queryClient.setQueryData(financeQueries.revenueLines(api, merchantId).queryKey, view);
    },
    onError: (err) => {
      setConfirming(null);
      setError(errorText(err));
    },
  });
  return (
    <QueryState query={lines}>
      {(d) => (
        <>
          <div className="bo-stats">
            <Stat label={t('finance.revenue.lines')} value={String(d.counts.total)} />
            <Stat label={t('finance.revenue.active')} value={String(d.counts.active)} />
            <Stat label={t('finance.revenue.inactive')} value={String(d.counts.inactive)} />
          </div>
          {error && (
            <div className="bo-alert bo-alert--error" role="alert">
              {error}
            </div>
          )}
          <Card title={t('finance.revenue.serviceCodes')} className="bo-card--flush" testId="revenue-lines">
            {d.lines.length === 0 ? (
              <Empty title={t('finance.revenue.empty')}>{t('finance.revenue.emptyHint', { route: <code translate="no">POST /api/v1/revenue-lines</code> })}</Empty>
            ) : (
              <DataTable
                rows={d.lines}
                rowKey={(l) => l.id}
                pageSize={20}
                defaultSort={{ key: 'code', dir: 'asc' }}
                columns={[
                  { key: 'code', header: t('finance.code'), sortValue: (l) => l.code, render: (l) => <Mono>{l.code}</Mono> },
                  { key: 'name', header: t('finance.name'), sortValue: (l) => l.name, render: (l) => <span translate="no">{l.name}</span> },
                  { key: 'state', header: t('finance.state'), sortValue: (l) => (l.active ? 'active' : 'inactive'), render: (l) => <StatusBadge status={l.active ? 'active' : 'inactive'} label={l.active ? t('finance.revenue.active') : t('finance.revenue.inactive')} /> },
                  { key: 'source', header: t('finance.revenue.lastChangeBy'), sortValue: (l) => l.source, render: (l) => (l.source === 'backoffice' ? t('finance.revenue.backOffice') : t('finance.revenue.apiSync')) },
                  { key: 'synced', header: t('finance.revenue.lastSynced'), sortValue: (l) => l.last_synced_at, render: (l) => <time dateTime={l.last_synced_at}>{formatDateTime(l.last_synced_at)}</time> },
                  {
                    key: 'action',
                    header: t('finance.revenue.actions'),
                    hideHeader: true,
                    align: 'right',
                    render: (l) => (
                      <button
                        type="button"
                        className={`bo-btn bo-btn--sm ${l.active ? 'bo-btn--danger' : 'bo-btn--secondary'}`}
                        disabled={toggle.isPending}
                        onClick={() => (l.active ? setConfirming(l) : toggle.mutate({ id: l.id, active: true }))}
                        aria-label={l.active ? t('finance.revenue.deactivateNamed', { code: l.code, name: l.name }) : t('finance.revenue.activateNamed', { code: l.code, name: l.name })}
                      >
                        {l.active ? t('finance.revenue.deactivate') : t('finance.revenue.activate')}
                      </button>
                    ),
                  },
                ]}
              />
            )}
          </Card>
          <ConfirmDialog
            open={confirming !== null}
            title={t('finance.revenue.confirmTitle', { code: confirming?.code ?? '' })}
            confirmLabel={t('finance.revenue.deactivate')}
            tone="danger"
            busy={toggle.isPending}
            onConfirm={() => confirming && toggle.mutate({ id: confirming.id, active: false })}
            onCancel={() => setConfirming(null)}
          >
            <p>{t('finance.revenue.confirmBody', { line: <span translate="no">{`${confirming?.code ?? ''} ${confirming?.name ?? ''}`}</span> })}</p>
          </ConfirmDialog>
          <Card title={t('finance.revenue.syncs')} className="bo-card--flush">
            {d.syncs.length === 0 ? (
              <Empty title={t('finance.revenue.noSyncs')} />
            ) : (
              <DataTable
                rows={d.syncs}
                rowKey={(s) => s.id}
                defaultSort={{ key: 'at', dir: 'desc' }}
                columns={[
                  { key: 'at', header: t('finance.revenue.when'), sortValue: (s) => s.created_at, render: (s) => <time dateTime={s.created_at}>{formatDateTime(s.created_at, { seconds: true })}</time> },
                  { key: 'source', header: t('finance.revenue.source'), sortValue: (s) => s.source, render: (s) => (s.source === 'api' ? t('finance.revenue.apiSync') : t('finance.revenue.backOffice')) },
                  { key: 'created', header: t('finance.revenue.created'), align: 'right', sortValue: (s) => s.created, render: (s) => s.created },
                  { key: 'updated', header: t('finance.revenue.updated'), align: 'right', sortValue: (s) => s.updated, render: (s) => s.updated },
                  { key: 'reactivated', header: t('finance.revenue.reactivated'), align: 'right', sortValue: (s) => s.reactivated, render: (s) => s.reactivated },
                  { key: 'deactivated', header: t('finance.revenue.deactivated'), align: 'right', sortValue: (s) => s.deactivated, render: (s) => s.deactivated },
                  { key: 'unchanged', header: t('finance.revenue.unchanged'), align: 'right', sortValue: (s) => s.unchanged, render: (s) => s.unchanged },
                  { key: 'errors', header: t('finance.revenue.errors'), align: 'right', sortValue: (s) => s.error_count, render: (s) => s.error_count },
                ]}
              />
            )}
          </Card>
        </>
      )}
    </QueryState>
  );
}

