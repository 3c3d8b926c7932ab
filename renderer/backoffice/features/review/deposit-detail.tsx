import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useSession } from '../auth/session';
import { useApi } from '../common/api';
import { formatDateTime } from '../common/format';
import { Card, DetailList, Money, Mono, PageTitle, QueryState, StatusBadge } from '../../../ui/blocks';
import { Link } from '../../router';
import { ROUTES } from '../../routes';
import { depositQueries } from './deposits.queries';
import { ApproveDialog, RejectForm, useReview, type Flash } from './review-actions';
import { useT } from '../../../ui/i18n';

/** One deposit, everything known about it, with the review actions while it waits. */
export function DepositDetail({ id, flash, onFlash }: { id: string; flash: Flash | null; onFlash: (f: Flash) => void }) {
  const api = useApi();
  const t = useT();
  const { session } = useSession();
  const deposit = useQuery(depositQueries.one(api, id));
  const [approving, setApproving] = useState(false);
  const [rejecting, setRejecting] = useState(false);
  const { approve, reject, busy } = useReview((f) => {
    onFlash(f);
    setApproving(false);
    setRejecting(false);
    void deposit.refetch();
  });
  return (
    <div className="bo-page rv-page">
      <PageTitle title={t('review.detail.title')} subtitle={<Link to={ROUTES.review.path}>{t('review.detail.back')}</Link>} />
      {flash && (
        <div className={`bo-alert bo-alert--${flash.tone}`} role={flash.tone === 'error' ? 'alert' : 'status'}>
          {flash.text}
        </div>
      )}
      <QueryState query={deposit}>
        {(d) => {
          const mine = d.recorded_by.id === session?.user.id;
          const open = d.status === 'under_review';
          return (
            <Card title={<>{t('review.detail.slip', { mono: () => <Mono key="s">{d.slip_reference}</Mono> })}</>} actions={<StatusBadge status={d.status} kind="deposit" />} testId="deposit-detail">
              <div className="rv-detail__amount">
                <Money minor={d.amount_minor} currency={d.currency} strong />
                {d.mode === 'test' && <span className="cd-test-chip">{t('review.detail.test')}</span>}
              </div>
              <DetailList
                items={[
                  [t('review.field.merchant'), <span key="m" translate="no">{d.merchant_name}</span>],
                  [t('review.field.invoice'), <Mono key="i">{d.invoice_ref}</Mono>],
                  [t('review.field.payer'), d.customer_name ? <span key="c" translate="no">{d.customer_name}</span> : '—'],
                  [t('review.field.for'), d.description ? <span key="d" translate="no">{d.description}</span> : '—'],
                  [t('review.field.session'), <Mono key="s">{d.session_id}</Mono>],
                  [t('review.field.payment'), <StatusBadge key="p" status={d.session_status} />],
                  [t('review.field.recordedBy'), <span key="u" translate="no">{d.recorded_by.username}</span>],
                  [t('review.field.branch'), d.branch_name ? <span key="b" translate="no">{d.branch_name}</span> : t('review.noBranchRecorded')],
                  [t('review.field.recordedAt'), <time key="t" dateTime={d.created_at}>{formatDateTime(d.created_at, { seconds: true })}</time>],
                  [t('review.field.note'), d.note ? <span key="n" translate="no">{d.note}</span> : '—'],
                  [
                    t('review.field.reviewedBy'),
                    d.reviewed_by ? (
                      <span key="v">
                        <span translate="no">{d.reviewed_by.username}</span>, <time dateTime={d.reviewed_at ?? undefined}>{formatDateTime(d.reviewed_at, { seconds: true })}</time>
                      </span>
                    ) : (
                      t('review.notYet')
                    ),
                  ],
                  [t('review.field.reason'), d.review_reason ? <span key="w" translate="no">{d.review_reason}</span> : '—'],
                  [t('review.field.receipt'), <Mono key="r">{d.id}</Mono>],
                ]}
              />
              {open && mine && <p className="bo-muted">{t('review.detail.yours')}</p>}
              {open && !mine && session?.user.role === 'supervisor' && (
                <div className="rv-detail__actions">
                  {rejecting ? (
                    <RejectForm deposit={d} busy={busy} onReject={(reason) => reject.mutate({ d, reason })} onCancel={() => setRejecting(false)} />
                  ) : (
                    <div className="bo-inline-form">
                      <button type="button" className="bo-btn bo-btn--primary" disabled={busy} onClick={() => setApproving(true)}>
                        {t('review.approve')}
                      </button>
                      <button type="button" className="bo-btn bo-btn--danger" disabled={busy} onClick={() => setRejecting(true)}>
                        {t('review.reject')}
                      </button>
                    </div>
                  )}
                </div>
              )}
              <ApproveDialog deposit={approving ? d : null} busy={approve.isPending} onConfirm={() => approve.mutate(d)} onCancel={() => setApproving(false)} />
            </Card>
          );
        }}
      </QueryState>
    </div>
  );
}
