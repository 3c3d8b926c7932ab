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

/** One deposit, everything known about it, with the review actions while it waits. */
export function DepositDetail({ id, flash, onFlash }: { id: string; flash: Flash | null; onFlash: (f: Flash) => void }) {
  const api = useApi();
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
      <PageTitle title="Deposit" subtitle={<Link to={ROUTES.review.path}>← Back to the review queue</Link>} />
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
            <Card title={<>Slip <Mono>{d.slip_reference}</Mono></>} actions={<StatusBadge status={d.status} kind="deposit" />} testId="deposit-detail">
              <div className="rv-detail__amount">
                <Money minor={d.amount_minor} currency={d.currency} strong />
                {d.mode === 'test' && <span className="cd-test-chip">TEST</span>}
              </div>
              <DetailList
                items={[
                  ['Merchant', d.merchant_name],
                  ['Invoice', <Mono key="i">{d.invoice_ref}</Mono>],
                  ['Payer', d.customer_name || '—'],
                  ['For', d.description || '—'],
                  ['Session', <Mono key="s">{d.session_id}</Mono>],
                  ['Payment', <StatusBadge key="p" status={d.session_status} />],
                  ['Recorded by', d.recorded_by.username],
                  ['Branch', d.branch_name ?? 'No branch recorded'],
                  ['Recorded at', formatDateTime(d.created_at, { seconds: true })],
                  ["Teller's note", d.note || '—'],
                  ['Reviewed by', d.reviewed_by ? `${d.reviewed_by.username}, ${formatDateTime(d.reviewed_at, { seconds: true })}` : 'Not yet'],
                  ['Reason', d.review_reason || '—'],
                  ['Receipt no.', <Mono key="r">{d.id}</Mono>],
                ]}
              />
              {open && mine && <p className="bo-muted">You recorded this deposit: another supervisor reviews it.</p>}
              {open && !mine && session?.user.role === 'supervisor' && (
                <div className="rv-detail__actions">
                  {rejecting ? (
                    <RejectForm deposit={d} busy={busy} onReject={(reason) => reject.mutate({ d, reason })} onCancel={() => setRejecting(false)} />
                  ) : (
                    <div className="bo-inline-form">
                      <button type="button" className="bo-btn bo-btn--primary" disabled={busy} onClick={() => setApproving(true)}>
                        Approve
                      </button>
                      <button type="button" className="bo-btn bo-btn--danger" disabled={busy} onClick={() => setRejecting(true)}>
                        Reject
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
