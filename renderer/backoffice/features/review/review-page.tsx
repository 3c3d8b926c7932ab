import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import type { CashDeposit } from '../../../../shared/schemas/backoffice';
import { useSession } from '../auth/session';
import { errorMessage, useApi } from '../common/api';
import { formatDateTime, formatMoney, formatRelative } from '../common/format';
import { Card, DataTable, Empty, Money, Mono, PageTitle, QueryState, StatusBadge, type SortState } from '../common/ui';
import { approveDeposit, depositQueries, rejectDeposit } from './deposits.queries';

/**
 * The supervisor's review queue (maker-checker): deposits under review, oldest first. The
 * server refuses a review by the deposit's recorder; the screen says so before anyone tries.
 */
export function ReviewPage() {
  const api = useApi();
  const queryClient = useQueryClient();
  const { session } = useSession();
  // The queue is worked oldest first unless a header says otherwise.
  const [queueSort, setQueueSort] = useState<SortState>({ key: 'created_at', dir: 'asc' });
  const [queueOffset, setQueueOffset] = useState(0);
  const queueLimit = 25;
  const queue = useQuery(depositQueries.list(api, 'under_review', queueLimit, queueOffset, queueSort));
  const [historySort, setHistorySort] = useState<SortState>({ key: 'created_at', dir: 'desc' });
  const [historyOffset, setHistoryOffset] = useState(0);
  const history = useQuery(depositQueries.list(api, undefined, 10, historyOffset, historySort));
  const [rejecting, setRejecting] = useState<string | null>(null);
  const [reason, setReason] = useState('');
  const [flash, setFlash] = useState<{ tone: 'success' | 'error'; text: string } | null>(null);

  const done = (text: string) => {
    setFlash({ tone: 'success', text });
    setRejecting(null);
    setReason('');
    void queryClient.invalidateQueries({ queryKey: depositQueries.all(api) });
  };
  const approve = useMutation({
    mutationFn: (d: CashDeposit) => approveDeposit(api, d.id),
    onSuccess: ({ deposit: d }) => done(`Approved ${formatMoney(d.amount_minor, d.currency)} for ${d.merchant_name} (slip ${d.slip_reference}). The payment is complete.`),
    onError: (err) => {
      setFlash({ tone: 'error', text: errorMessage(err) });
      void queryClient.invalidateQueries({ queryKey: depositQueries.all(api) });
    },
  });
  const reject = useMutation({
    mutationFn: ({ id, why }: { id: string; why: string }) => rejectDeposit(api, id, why),
    onSuccess: ({ deposit: d }) => done(`Rejected slip ${d.slip_reference}. The payer can request a new slip.`),
    onError: (err) => setFlash({ tone: 'error', text: errorMessage(err) }),
  });

  const submitReject = (e: FormEvent, id: string) => {
    e.preventDefault();
    if (reason.trim()) reject.mutate({ id, why: reason.trim() });
  };

  const busy = approve.isPending || reject.isPending;
  const count = queue.data?.total ?? 0;

  return (
    <div className="bo-page">
      <PageTitle title="Deposit review" subtitle="Check each deposit against the cash in the drawer, then approve or reject it. You cannot review a deposit you recorded." />
      {flash && (
        <div className={`bo-alert bo-alert--${flash.tone}`} role={flash.tone === 'error' ? 'alert' : 'status'}>
          {flash.text}
        </div>
      )}
      <Card title={`Waiting for review${count ? ` (${count})` : ''}`} className="bo-card--flush" testId="review-queue">
        <QueryState
          query={queue}
          isEmpty={(d) => d.deposits.length === 0}
          empty={<Empty title="The queue is empty">New deposits recorded at the counters appear here within a few seconds.</Empty>}
        >
          {(d) => (
            <DataTable
              caption="Deposits waiting for review"
              testId="review-queue-table"
              rows={d.deposits}
              rowKey={(r) => r.id}
              sort={queueSort}
              onSort={(s) => {
                setQueueSort(s);
                setQueueOffset(0);
              }}
              page={{ total: d.total, limit: queueLimit, offset: queueOffset, onChange: setQueueOffset }}
              columns={[
                {
                  key: 'when',
                  header: 'Recorded',
                  sortKey: 'created_at',
                  nowrap: true,
                  render: (r) => (
                    <span title={formatDateTime(r.created_at, { seconds: true })}>
                      {formatRelative(r.created_at)}
                    </span>
                  ),
                },
                {
                  key: 'merchant',
                  header: 'Merchant · invoice',
                  sortKey: 'merchant_name',
                  render: (r) => (
                    <>
                      <div>{r.merchant_name}</div>
                      <div className="bo-muted">
                        <Mono>{r.invoice_ref}</Mono> · {r.customer_name || 'no payer name'}
                      </div>
                    </>
                  ),
                },
                { key: 'slip', header: 'Slip', sortKey: 'slip_reference', render: (r) => <Mono>{r.slip_reference}</Mono> },
                {
                  key: 'teller',
                  header: 'Teller · branch',
                  sortKey: 'recorded_by',
                  render: (r) => (
                    <>
                      <div>{r.recorded_by.username}</div>
                      <div className="bo-muted">{r.branch_name ?? '—'}</div>
                    </>
                  ),
                },
                { key: 'amount', header: 'Amount', sortKey: 'amount_minor', align: 'right', render: (r) => <Money minor={r.amount_minor} currency={r.currency} strong /> },
                {
                  key: 'actions',
                  header: 'Decision',
                  align: 'right',
                  render: (r) =>
                    r.recorded_by.id === session?.user.id ? (
                      <span className="bo-muted">Recorded by you: another supervisor reviews it</span>
                    ) : rejecting === r.id ? (
                      <form className="bo-inline-form" onSubmit={(e) => submitReject(e, r.id)}>
                        <input
                          className="bo-input"
                          autoFocus
                          placeholder="Reason (required)"
                          aria-label={`Reason for rejecting slip ${r.slip_reference}`}
                          value={reason}
                          maxLength={500}
                          onChange={(e) => setReason(e.target.value)}
                          onKeyDown={(e) => e.key === 'Escape' && setRejecting(null)}
                        />
                        <button type="submit" className="bo-btn bo-btn--danger bo-btn--sm" disabled={busy || !reason.trim()}>
                          Confirm reject
                        </button>
                        <button type="button" className="bo-btn bo-btn--secondary bo-btn--sm" onClick={() => setRejecting(null)}>
                          Cancel
                        </button>
                      </form>
                    ) : (
                      <div className="bo-inline-form bo-inline-form--end">
                        <button
                          type="button"
                          className="bo-btn bo-btn--primary bo-btn--sm"
                          disabled={busy}
                          onClick={() => approve.mutate(r)}
                          aria-label={`Approve ${formatMoney(r.amount_minor, r.currency)} on slip ${r.slip_reference}`}
                        >
                          Approve
                        </button>
                        <button
                          type="button"
                          className="bo-btn bo-btn--danger bo-btn--sm"
                          disabled={busy}
                          onClick={() => {
                            setRejecting(r.id);
                            setReason('');
                          }}
                          aria-label={`Reject slip ${r.slip_reference}`}
                        >
                          Reject
                        </button>
                      </div>
                    ),
                },
              ]}
            />
          )}
        </QueryState>
      </Card>

      <Card title="All deposits" className="bo-card--flush">
        <QueryState query={history} isEmpty={(d) => d.total === 0} empty={<Empty title="No deposits yet" />}>
          {(d) => (
            <>
              <DataTable
                caption="All deposits"
                testId="deposit-history"
                rows={d.deposits}
                rowKey={(r) => r.id}
                sort={historySort}
                onSort={(s) => {
                  setHistorySort(s);
                  setHistoryOffset(0);
                }}
                page={{ total: d.total, limit: 10, offset: historyOffset, onChange: setHistoryOffset }}
                columns={[
                  { key: 'when', header: 'Recorded', sortKey: 'created_at', nowrap: true, render: (r) => formatDateTime(r.created_at) },
                  { key: 'merchant', header: 'Merchant', sortKey: 'merchant_name', render: (r) => r.merchant_name },
                  { key: 'slip', header: 'Slip', sortKey: 'slip_reference', render: (r) => <Mono>{r.slip_reference}</Mono> },
                  { key: 'teller', header: 'Teller', sortKey: 'recorded_by', render: (r) => r.recorded_by.username },
                  { key: 'reviewer', header: 'Reviewed by', sortKey: 'reviewed_by', render: (r) => (r.reviewed_by ? r.reviewed_by.username : '—') },
                  { key: 'reason', header: 'Reason', render: (r) => r.review_reason ?? '' },
                  { key: 'amount', header: 'Amount', sortKey: 'amount_minor', align: 'right', render: (r) => <Money minor={r.amount_minor} currency={r.currency} /> },
                  { key: 'status', header: 'Status', sortKey: 'status', render: (r) => <StatusBadge status={r.status} /> },
                ]}
              />
            </>
          )}
        </QueryState>
      </Card>
    </div>
  );
}
