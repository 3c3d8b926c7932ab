import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useApi } from '../common/api';
import { useErrorText } from '../common/error-text';
import { formatDateTime } from '../common/format';
import { Card, DataTable, Empty, Mono, QueryState, StatusBadge } from '../../../ui/blocks';
import { ConfirmDialog } from '../common/confirm-dialog';
import { Stat } from './finance-base';
import { financeQueries, setRevenueLineActive } from './finance.queries';

export function RevenueLinesViewPanel({ merchantId }: { merchantId: string | undefined }) {
  const errorText = useErrorText();
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
            <Stat label="Revenue lines" value={String(d.counts.total)} />
            <Stat label="Active" value={String(d.counts.active)} />
            <Stat label="Inactive" value={String(d.counts.inactive)} />
          </div>
          {error && (
            <div className="bo-alert bo-alert--error" role="alert">
              {error}
            </div>
          )}
          <Card title="Service codes" className="bo-card--flush" testId="revenue-lines">
            {d.lines.length === 0 ? (
              <Empty title="No revenue lines">The merchant syncs its service codes with POST /api/v1/revenue-lines.</Empty>
            ) : (
              <DataTable
                rows={d.lines}
                rowKey={(l) => l.id}
                pageSize={20}
                defaultSort={{ key: 'code', dir: 'asc' }}
                columns={[
                  { key: 'code', header: 'Code', sortValue: (l) => l.code, render: (l) => <Mono>{l.code}</Mono> },
                  { key: 'name', header: 'Name', sortValue: (l) => l.name, render: (l) => l.name },
                  { key: 'state', header: 'State', sortValue: (l) => (l.active ? 'active' : 'inactive'), render: (l) => <StatusBadge status={l.active ? 'active' : 'inactive'} /> },
                  { key: 'source', header: 'Last change by', sortValue: (l) => l.source, render: (l) => (l.source === 'backoffice' ? 'Back office' : 'API sync') },
                  { key: 'synced', header: 'Last synced', sortValue: (l) => l.last_synced_at, render: (l) => formatDateTime(l.last_synced_at) },
                  {
                    key: 'action',
                    header: 'Actions',
                    hideHeader: true,
                    align: 'right',
                    render: (l) => (
                      <button
                        type="button"
                        className={`bo-btn bo-btn--sm ${l.active ? 'bo-btn--danger' : 'bo-btn--secondary'}`}
                        disabled={toggle.isPending}
                        onClick={() => (l.active ? setConfirming(l) : toggle.mutate({ id: l.id, active: true }))}
                        aria-label={`${l.active ? 'Deactivate' : 'Activate'} ${l.code} ${l.name}`}
                      >
                        {l.active ? 'Deactivate' : 'Activate'}
                      </button>
                    ),
                  },
                ]}
              />
            )}
          </Card>
          <ConfirmDialog
            open={confirming !== null}
            title={`Deactivate ${confirming?.code ?? ''}?`}
            confirmLabel="Deactivate"
            tone="danger"
            busy={toggle.isPending}
            onConfirm={() => confirming && toggle.mutate({ id: confirming.id, active: false })}
            onCancel={() => setConfirming(null)}
          >
            <p>
              {confirming?.code} {confirming?.name}: the merchant can no longer bill it. New invoice lines with this code are refused until it is activated again; lines already billed stay as they are.
            </p>
          </ConfirmDialog>
          <Card title="Sync history" className="bo-card--flush">
            {d.syncs.length === 0 ? (
              <Empty title="No syncs yet" />
            ) : (
              <DataTable
                rows={d.syncs}
                rowKey={(s) => s.id}
                defaultSort={{ key: 'at', dir: 'desc' }}
                columns={[
                  { key: 'at', header: 'When', sortValue: (s) => s.created_at, render: (s) => formatDateTime(s.created_at, { seconds: true }) },
                  { key: 'source', header: 'Source', sortValue: (s) => s.source, render: (s) => (s.source === 'api' ? 'API sync' : 'Back office') },
                  { key: 'created', header: 'Created', align: 'right', sortValue: (s) => s.created, render: (s) => s.created },
                  { key: 'updated', header: 'Updated', align: 'right', sortValue: (s) => s.updated, render: (s) => s.updated },
                  { key: 'reactivated', header: 'Reactivated', align: 'right', sortValue: (s) => s.reactivated, render: (s) => s.reactivated },
                  { key: 'deactivated', header: 'Deactivated', align: 'right', sortValue: (s) => s.deactivated, render: (s) => s.deactivated },
                  { key: 'unchanged', header: 'Unchanged', align: 'right', sortValue: (s) => s.unchanged, render: (s) => s.unchanged },
                  { key: 'errors', header: 'Errors', align: 'right', sortValue: (s) => s.error_count, render: (s) => s.error_count },
                ]}
              />
            )}
          </Card>
        </>
      )}
    </QueryState>
  );
}

