import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import type { CashDeposit } from '../../../../shared/schemas/backoffice';
import { useSession } from '../auth/session';
import { useApi } from '../common/api';
import { formatDateTime, formatRelative } from '../common/format';
import { Card, DataTable, Empty, InputField, Money, Mono, PageTitle, QueryState, SelectField, StatusBadge, type SortState } from '../../../ui/blocks';
import { listPager, totalLabel, useListPages } from '../common/paging';
import { Link, useRouter } from '../../router';
import { ROUTES } from '../../routes';
import { depositQueries, type DepositFilter } from './deposits.queries';
import { DepositDetail } from './deposit-detail';
import { ApproveDialog, RejectForm, useReview, type Flash } from './review-actions';
import { REVIEW_SHORTCUTS, useReviewShortcuts } from './review-shortcuts';
import { ShortcutsButton, ShortcutsHelp } from '../common/shortcuts';
import { useT } from '../../../ui/i18n';
import './review.css';

const depositPath = (id: string) => `${ROUTES.review.path}/${encodeURIComponent(id)}`;

/**
 * The supervisor's review queue (maker-checker): deposits under review, oldest first, and all
 * deposits, both filtered by teller, branch and day. The server refuses a review by the
 * deposit's recorder; the screen says so before anyone tries. `/backoffice/review/{id}` is
 * one deposit's detail view.
 */
export function ReviewPage() {
  const { path } = useRouter();
  const id = path.startsWith(`${ROUTES.review.path}/`) ? decodeURIComponent(path.slice(ROUTES.review.path.length + 1)) : '';
  const [flash, setFlash] = useState<Flash | null>(null);
  // A message belongs to the view it was given on: moving between queue and detail clears it.
  const [shownFor, setShownFor] = useState(id);
  if (shownFor !== id) {
    setShownFor(id);
    setFlash(null);
  }
  if (id) return <DepositDetail id={id} flash={flash} onFlash={setFlash} />;
  return <ReviewLists flash={flash} onFlash={setFlash} />;
}

function Filters({ filter, onChange }: { filter: DepositFilter; onChange: (f: DepositFilter) => void }) {
  const api = useApi();
  const facets = useQuery(depositQueries.facets(api));
  const any = filter.recorded_by || filter.branch_id || filter.from || filter.to;
  const t = useT();
  return (
    <div className="bo-filters" data-testid="review-filters">
      <SelectField
        label={t('review.filter.teller')}
        value={filter.recorded_by ?? ''}
        onChange={(v) => onChange({ ...filter, recorded_by: v || undefined })}
        options={[{ value: '', label: t('review.filter.allTellers') }, ...(facets.data?.tellers ?? []).map((u) => ({ value: u.id, label: u.username, data: true }))]}
      />
      <SelectField
        label={t('review.filter.branch')}
        value={filter.branch_id ?? ''}
        onChange={(v) => onChange({ ...filter, branch_id: v || undefined })}
        options={[{ value: '', label: t('review.filter.allBranches') }, ...(facets.data?.branches ?? []).map((b) => ({ value: b.id, label: b.name, data: true }))]}
      />
      <InputField label={t('review.filter.from')} type="date" value={filter.from ?? ''} onChange={(v) => onChange({ ...filter, from: v || undefined })} />
      <InputField label={t('review.filter.to')} type="date" value={filter.to ?? ''} onChange={(v) => onChange({ ...filter, to: v || undefined })} />
      {any && (
        <button type="button" className="bo-btn bo-btn--secondary bo-btn--sm rv-clear" onClick={() => onChange({})}>
          {t('review.filter.clear')}
        </button>
      )}
    </div>
  );
}

function ReviewLists({ flash, onFlash }: { flash: Flash | null; onFlash: (f: Flash) => void }) {
  const api = useApi();
  const { session } = useSession();
  const { navigate } = useRouter();
  const [help, setHelp] = useState(false);
  const t = useT();
  const [filter, setFilter] = useState<DepositFilter>({});
  // The queue is worked oldest first unless a header says otherwise.
  const [queueSort, setQueueSort] = useState<SortState>({ key: 'created_at', dir: 'asc' });
  const queueLimit = 25;
  const queuePages = useListPages(queueLimit);
  const queue = useQuery(depositQueries.list(api, { ...filter, status: 'under_review', limit: queueLimit, offset: queuePages.offset, cursor: queuePages.cursor, sort: queueSort }));
  const [historySort, setHistorySort] = useState<SortState>({ key: 'created_at', dir: 'desc' });
  const historyPages = useListPages(10);
  const history = useQuery(depositQueries.list(api, { ...filter, limit: 10, offset: historyPages.offset, cursor: historyPages.cursor, sort: historySort }));
  const [approving, setApproving] = useState<CashDeposit | null>(null);
  const [rejecting, setRejecting] = useState<string | null>(null);
  const { approve, reject, busy } = useReview((f) => {
    onFlash(f);
    setApproving(null);
    setRejecting(null);
  });
  const count = queue.data?.total ?? 0;
  // j/k move through the queue (focus on the row's Approve button, else its slip link); a, r and
  // o act on the row holding focus, the first row when none does; ? opens the shortcuts' help.
  useReviewShortcuts((key) => {
    if (key === 'help') return setHelp(true);
    const rows = [...document.querySelectorAll<HTMLTableRowElement>('[data-testid="review-queue-table"] tbody tr')];
    const deposits = queue.data?.deposits ?? [];
    if (rows.length === 0 || deposits.length === 0) return;
    const at = rows.findIndex((tr) => tr.contains(document.activeElement));
    if (key === 'next' || key === 'previous') {
      const to = rows[at < 0 ? 0 : Math.max(0, Math.min(rows.length - 1, at + (key === 'next' ? 1 : -1)))]!;
      const target = to.querySelector<HTMLElement>('.rv-approve') ?? to.querySelector<HTMLElement>('a');
      target?.focus();
      target?.scrollIntoView({ block: 'nearest' });
      return;
    }
    const d = deposits[Math.max(0, at)];
    if (!d) return;
    if (key === 'open') return navigate(depositPath(d.id));
    if (d.recorded_by.id === session?.user.id) return onFlash({ tone: 'error', text: t('reviewKeys.yours', { slip: d.slip_reference }) });
    if (busy) return;
    if (key === 'approve') setApproving(d);
    else setRejecting(d.id);
  });
  const changeFilter = (f: DepositFilter) => {
    setFilter(f);
    queuePages.restart();
    historyPages.restart();
  };

  return (
    <div className="bo-page rv-page">
      <PageTitle
        title={t('review.title')}
        subtitle={t('review.subtitle')}
        actions={<ShortcutsButton onClick={() => setHelp(true)} />}
      />
      <ShortcutsHelp open={help} onClose={() => setHelp(false)} shortcuts={REVIEW_SHORTCUTS} when="reviewKeys.when" caption="reviewKeys.caption" />
      {flash && (
        <div className={`bo-alert bo-alert--${flash.tone}`} role={flash.tone === 'error' ? 'alert' : 'status'}>
          {flash.text}
        </div>
      )}
      <Filters filter={filter} onChange={changeFilter} />
      <Card title={count ? t('review.queue.titleCount', { count: totalLabel(count, queue.data?.total_capped) }) : t('review.queue.title')} className="bo-card--flush" testId="review-queue">
        <QueryState
          query={queue}
          isEmpty={(d) => d.deposits.length === 0}
          empty={<Empty title={t('review.queue.emptyTitle')}>{t('review.queue.emptyBody')}</Empty>}
        >
          {(d) => (
            <DataTable
              caption={t('review.queue.caption')}
              testId="review-queue-table"
              rows={d.deposits}
              rowKey={(r) => r.id}
              sort={queueSort}
              onSort={(s) => {
                setQueueSort(s);
                queuePages.restart();
              }}
              page={listPager(queuePages, { total: d.total, capped: d.total_capped, rows: d.deposits.length, limit: queueLimit }, queue.isPlaceholderData ? null : d.next_cursor)}
              columns={[
                {
                  key: 'when',
                  header: t('review.col.recorded'),
                  sortKey: 'created_at',
                  nowrap: true,
                  render: (r) => (
                    <time dateTime={r.created_at} translate="no" title={formatDateTime(r.created_at, { seconds: true })}>
                      {formatRelative(r.created_at)}
                    </time>
                  ),
                },
                {
                  key: 'merchant',
                  header: t('review.col.merchantInvoice'),
                  sortKey: 'merchant_name',
                  render: (r) => (
                    <>
                      <div translate="no">{r.merchant_name}</div>
                      <div className="bo-muted">
                        <Mono>{r.invoice_ref}</Mono> · {r.customer_name ? <span translate="no">{r.customer_name}</span> : t('review.noPayerName')}
                      </div>
                    </>
                  ),
                },
                {
                  key: 'slip',
                  header: t('review.col.slip'),
                  sortKey: 'slip_reference',
                  render: (r) => (
                    <Link to={depositPath(r.id)} className="rv-link">
                      <Mono>{r.slip_reference}</Mono>
                    </Link>
                  ),
                },
                {
                  key: 'teller',
                  header: t('review.col.tellerBranch'),
                  sortKey: 'recorded_by',
                  render: (r) => (
                    <>
                      <div translate="no">{r.recorded_by.username}</div>
                      <div className="bo-muted">{r.branch_name ? <span translate="no">{r.branch_name}</span> : t('review.noBranch')}</div>
                    </>
                  ),
                },
                { key: 'amount', header: t('review.col.amount'), sortKey: 'amount_minor', align: 'right', nowrap: true, render: (r) => <Money minor={r.amount_minor} currency={r.currency} strong /> },
                {
                  key: 'actions',
                  header: t('review.col.decision'),
                  align: 'right',
                  render: (r) =>
                    r.recorded_by.id === session?.user.id ? (
                      <span className="bo-muted">{t('review.recordedByYou')}</span>
                    ) : rejecting === r.id ? (
                      <RejectForm deposit={r} busy={busy} onReject={(reason) => reject.mutate({ d: r, reason })} onCancel={() => setRejecting(null)} />
                    ) : (
                      <div className="bo-inline-form bo-inline-form--end">
                        <button
                          type="button"
                          className="bo-btn bo-btn--primary bo-btn--sm rv-approve"
                          disabled={busy}
                          onClick={() => setApproving(r)}
                          aria-keyshortcuts="a"
                          aria-label={t('review.approveSlip', { slip: r.slip_reference })}
                        >
                          {t('review.approve')}
                        </button>
                        <button type="button" className="bo-btn bo-btn--danger bo-btn--sm" disabled={busy} onClick={() => setRejecting(r.id)} aria-label={t('review.rejectSlip', { slip: r.slip_reference })}>
                          {t('review.reject')}
                        </button>
                      </div>
                    ),
                },
              ]}
            />
          )}
        </QueryState>
      </Card>
      <ApproveDialog deposit={approving} busy={approve.isPending} onConfirm={() => approving && approve.mutate(approving)} onCancel={() => setApproving(null)} />

      <Card title={t('review.all.title')} className="bo-card--flush">
        <QueryState query={history} isEmpty={(d) => d.total === 0} empty={<Empty title={t('review.all.empty')} />}>
          {(d) => (
            <DataTable
              caption={t('review.all.title')}
              testId="deposit-history"
              rows={d.deposits}
              rowKey={(r) => r.id}
              sort={historySort}
              onSort={(s) => {
                setHistorySort(s);
                historyPages.restart();
              }}
              page={listPager(historyPages, { total: d.total, capped: d.total_capped, rows: d.deposits.length, limit: 10 }, history.isPlaceholderData ? null : d.next_cursor)}
              columns={[
                { key: 'when', header: t('review.col.recorded'), sortKey: 'created_at', nowrap: true, render: (r) => <time dateTime={r.created_at}>{formatDateTime(r.created_at)}</time> },
                { key: 'merchant', header: t('review.col.merchant'), sortKey: 'merchant_name', render: (r) => <span translate="no">{r.merchant_name}</span> },
                {
                  key: 'slip',
                  header: t('review.col.slip'),
                  sortKey: 'slip_reference',
                  render: (r) => (
                    <Link to={depositPath(r.id)} className="rv-link">
                      <Mono>{r.slip_reference}</Mono>
                    </Link>
                  ),
                },
                { key: 'teller', header: t('review.col.teller'), sortKey: 'recorded_by', render: (r) => <span translate="no">{r.recorded_by.username}</span> },
                { key: 'reviewer', header: t('review.col.reviewedBy'), sortKey: 'reviewed_by', render: (r) => (r.reviewed_by ? <span translate="no">{r.reviewed_by.username}</span> : '—') },
                { key: 'reason', header: t('review.col.reason'), render: (r) => <span translate="no">{r.review_reason ?? ''}</span> },
                { key: 'amount', header: t('review.col.amount'), sortKey: 'amount_minor', align: 'right', nowrap: true, render: (r) => <Money minor={r.amount_minor} currency={r.currency} /> },
                { key: 'status', header: t('review.col.status'), sortKey: 'status', render: (r) => <StatusBadge status={r.status} kind="deposit" /> },
              ]}
            />
          )}
        </QueryState>
      </Card>
    </div>
  );
}
