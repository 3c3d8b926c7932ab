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
import { useT, type T } from '../../../ui/i18n';

export type Flash = { tone: 'success' | 'error'; text: string };

/** Approve (after a confirmation) and reject, shared by the queue and the detail view. */
export function useReview(onFlash: (f: Flash) => void) {
  const errorText = useErrorText();
  const t = useT();
  const api = useApi();
  const queryClient = useQueryClient();
  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: depositQueries.all(api) });
    void queryClient.invalidateQueries({ queryKey: workCountsQuery(api).queryKey }); // the menu's waiting count
  };
  const approve = useMutation({
    mutationFn: (d: CashDeposit) => approveDeposit(api, d.id),
    onSuccess: ({ deposit: d }) => {
      onFlash({ tone: 'success', text: t('review.approved', { amount: formatMoney(d.amount_minor, d.currency), merchant: d.merchant_name, slip: d.slip_reference }) });
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
      onFlash({ tone: 'success', text: t('review.rejected', { slip: d.slip_reference }) });
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
  const t = useT();
  return (
    <ConfirmDialog open={d !== null} title={t('review.approveDialog.title')} confirmLabel={t('review.approveDialog.confirm')} busy={busy} onConfirm={onConfirm} onCancel={onCancel}>
      {d && (
        <>
          <p className="bo-confirm__lead">
            {t('review.approveDialog.lead', {
              merchant: d.merchant_name,
              invoice: d.invoice_ref,
              amount: () => (
                <strong key="a" data-testid="approve-amount">
                  {formatMoney(d.amount_minor, d.currency)}
                </strong>
              ),
              strong: (chunks) => (
                <strong key="m" translate="no">
                  {chunks}
                </strong>
              ),
              mono: (chunks) => <Mono key="i">{chunks}</Mono>,
            })}
          </p>
          <DetailList
            items={[
              [t('review.field.session'), <Mono key="s">{d.session_id}</Mono>],
              [t('review.field.slip'), <Mono key="r">{d.slip_reference}</Mono>],
              [t('review.field.payer'), d.customer_name ? <span key="p" translate="no">{d.customer_name}</span> : '—'],
              [t('review.field.recordedBy'), <span key="b" translate="no">{`${d.recorded_by.username}${d.branch_name ? `, ${d.branch_name}` : ''}`}</span>],
              [t('review.field.recordedAt'), <time key="t" dateTime={d.created_at}>{formatDateTime(d.created_at, { seconds: true })}</time>],
            ]}
          />
        </>
      )}
    </ConfirmDialog>
  );
}

/** The rejection reasons' codes (sent to the server as written) in the reader's words. */
const reasonWords = (t: T): Record<(typeof REJECTION_REASONS)[number], string> => ({
  'Cash short of the slip amount': t('review.reason.short'),
  'Counterfeit or damaged notes': t('review.reason.counterfeit'),
  'Wrong slip for this cash': t('review.reason.wrongSlip'),
  'Recorded twice': t('review.reason.twice'),
  Other: t('review.reason.other'),
});

/** A reason from the short list, plus free text (required for "Other"); sent as one `reason`. */
export function RejectForm({ deposit: d, busy, onReject, onCancel }: { deposit: CashDeposit; busy: boolean; onReject: (reason: string) => void; onCancel: () => void }) {
  const [choice, setChoice] = useState('');
  const [detail, setDetail] = useState('');
  const [error, setError] = useState<string | null>(null);
  const id = useId();
  const t = useT();
  const words = reasonWords(t);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!choice) return setError(t('review.reject.chooseReason'));
    if (choice === 'Other' && !detail.trim()) return setError(t('review.reject.sayWhat'));
    const reason = choice === 'Other' ? detail.trim() : detail.trim() ? `${choice}: ${detail.trim()}` : choice;
    onReject(reason.slice(0, 500));
  };
  return (
    <form className="rv-reject" onSubmit={submit} onKeyDown={(e) => e.key === 'Escape' && onCancel()} aria-label={t('review.rejectSlip', { slip: d.slip_reference })}>
      <label htmlFor={`${id}-r`} className="bo-filter__label">
        {t('review.reject.reason')}
      </label>
      <select id={`${id}-r`} className="bo-input" value={choice} autoFocus onChange={(e) => (setChoice(e.target.value), setError(null))} aria-invalid={error ? true : undefined}>
        <option value="">{t('review.reject.choose')}</option>
        {REJECTION_REASONS.map((r) => (
          <option key={r} value={r}>
            {words[r]}
          </option>
        ))}
      </select>
      <label htmlFor={`${id}-d`} className="bo-filter__label">
        {choice === 'Other' ? t('review.reject.detailsRequired') : t('review.reject.detailsOptional')}
      </label>
      <input id={`${id}-d`} className="bo-input" value={detail} maxLength={400} onChange={(e) => (setDetail(e.target.value), setError(null))} placeholder={t('review.reject.placeholder')} />
      {error && (
        <p className="bo-field-error" role="alert">
          {error}
        </p>
      )}
      <div className="bo-inline-form">
        <button type="submit" className="bo-btn bo-btn--danger bo-btn--sm" disabled={busy}>
          {t('review.reject.submit')}
        </button>
        <button type="button" className="bo-btn bo-btn--secondary bo-btn--sm" onClick={onCancel}>
          {t('review.reject.cancel')}
        </button>
      </div>
    </form>
  );
}
