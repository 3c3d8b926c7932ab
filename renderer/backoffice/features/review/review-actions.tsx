import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { REJECTION_REASONS, type CashDeposit } from '../../../../shared/schemas/backoffice';
import { useApi } from '../common/api';
import { ConfirmDialog } from '../common/confirm-dialog';
import { useErrorText } from '../common/error-text';
import { formatDateTime, formatMoney } from '../common/format';
import { DetailList, Mono } from '../../../ui/blocks';
import { workCountsQuery } from '../finance/exceptions.queries';
import { approveDeposit, depositQueries, rejectDeposit } from './deposits.queries';

export type Flash = { tone: 'success' | 'error'; text: string };

/** Approve (after a confirmation) and reject, shared by the queue and the detail view. */
export function useReview(onFlash: (f: Flash) => void) {
  const errorText = useErrorText();
  const api = useApi();
  const queryClient = useQueryClient();
  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: depositQueries.all(api) });
    void queryClient.invalidateQueries({ queryKey: workCountsQuery(api).queryKey }); // the menu's waiting count
  };
  const approve = useMutation({
    mutationFn: (d: CashDeposit) => approveDeposit(api, d.id),
    onSuccess: ({ deposit: d }) => {
      onFlash({ tone: 'success', text: `Approved ${formatMoney(d.amount_minor, d.currency)} for ${d.merchant_name} (slip ${d.slip_reference}). The payment is complete.` });
      refresh();
    },
    onError: (err) => {
      onFlash({ tone: 'error', text: errorText(err) });
      refresh();
    },
  });
  const reject = useMutation({
    mutationFn: ({ d, reason }: { d: CashDeposit; reason: string }) => rejectDeposit(api, d.id, reason),
    onSuccess: ({ deposit: d }) => {
      onFlash({ tone: 'success', text: `Rejected slip ${d.slip_reference}. The payer sees your reason and can request a new slip.` });
      refresh();
    },
    onError: (err) => {
      onFlash({ tone: 'error', text: errorText(err, 'reason') });
      refresh();
    },
  });
  return { approve, reject, busy: approve.isPending || reject.isPending };
}

/** The approval's consequence before it happens: the amount, the session and who counted it. */
export function ApproveDialog({ deposit: d, busy, onConfirm, onCancel }: { deposit: CashDeposit | null; busy: boolean; onConfirm: () => void; onCancel: () => void }) {
  return (
    <ConfirmDialog open={d !== null} title="Approve this deposit?" confirmLabel="Approve deposit" busy={busy} onConfirm={onConfirm} onCancel={onCancel}>
      {d && (
        <>
          <p className="bo-confirm__lead">
            <strong data-testid="approve-amount">{formatMoney(d.amount_minor, d.currency)}</strong> completes the payment of{' '}
            <strong>{d.merchant_name}</strong>'s invoice <Mono>{d.invoice_ref}</Mono>. The merchant is notified at once; this cannot be undone.
          </p>
          <DetailList
            items={[
              ['Session', <Mono key="s">{d.session_id}</Mono>],
              ['Slip', <Mono key="r">{d.slip_reference}</Mono>],
              ['Payer', d.customer_name || '—'],
              ['Recorded by', `${d.recorded_by.username}${d.branch_name ? `, ${d.branch_name}` : ''}`],
              ['Recorded at', formatDateTime(d.created_at, { seconds: true })],
            ]}
          />
        </>
      )}
    </ConfirmDialog>
  );
}

/** A reason from the short list, plus free text (required for "Other"); sent as one `reason`. */
export function RejectForm({ deposit: d, busy, onReject, onCancel }: { deposit: CashDeposit; busy: boolean; onReject: (reason: string) => void; onCancel: () => void }) {
  const [choice, setChoice] = useState('');
  const [detail, setDetail] = useState('');
  const [error, setError] = useState<string | null>(null);
  const id = useId();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!choice) return setError('Choose a reason.');
    if (choice === 'Other' && !detail.trim()) return setError('Say what is wrong: the payer reads this.');
    const reason = choice === 'Other' ? detail.trim() : detail.trim() ? `${choice}: ${detail.trim()}` : choice;
    onReject(reason.slice(0, 500));
  };
  return (
    <form className="rv-reject" onSubmit={submit} onKeyDown={(e) => e.key === 'Escape' && onCancel()} aria-label={`Reject slip ${d.slip_reference}`}>
      <label htmlFor={`${id}-r`} className="bo-filter__label">
        Reason
      </label>
      <select id={`${id}-r`} className="bo-input" value={choice} autoFocus onChange={(e) => (setChoice(e.target.value), setError(null))} aria-invalid={error ? true : undefined}>
        <option value="">Choose…</option>
        {REJECTION_REASONS.map((r) => (
          <option key={r} value={r}>
            {r}
          </option>
        ))}
      </select>
      <label htmlFor={`${id}-d`} className="bo-filter__label">
        Details {choice === 'Other' ? '(required)' : '(optional)'}
      </label>
      <input id={`${id}-d`} className="bo-input" value={detail} maxLength={400} onChange={(e) => (setDetail(e.target.value), setError(null))} placeholder="What the payer and teller should know" />
      {error && (
        <p className="bo-field-error" role="alert">
          {error}
        </p>
      )}
      <div className="bo-inline-form">
        <button type="submit" className="bo-btn bo-btn--danger bo-btn--sm" disabled={busy}>
          Reject deposit
        </button>
        <button type="button" className="bo-btn bo-btn--secondary bo-btn--sm" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
