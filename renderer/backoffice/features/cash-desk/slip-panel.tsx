import type { FormEvent } from 'react';
import type { ScannedSlip } from '../../../../shared/schemas/backoffice';
import { ApiError } from '../../api/client';
import { useErrorText } from '../common/error-text';
import { amountPlaceholder, formatDateTime, formatMoney, formatRelative, useAmountLocale } from '../common/format';
import { useT, type T } from '../../../ui/i18n';
import { useLabels, type Labels } from '../common/labels';
import { Card, DetailList, Loading, Mono, StatusBadge } from '../../../ui/blocks';

/** Why a scanned slip cannot take a deposit, in the teller's words: a headline and what to do. */
function blockedReason(t: T, labels: Labels, slip: ScannedSlip): { title: string; body: string } | null {
  if (slip.can_record) return null;
  // Paid is checked first: whatever became of the slip, the one thing the teller must know is not to take cash.
  if (slip.session_status === 'success' || slip.status === 'used') {
    const body = slip.paid_rail && slip.paid_rail !== 'cash' ? t('cashDesk.blocked.paidBody', { rail: labels.rail(slip.paid_rail).toLowerCase() }) : t('cashDesk.blocked.paidCashBody');
    return { title: t('cashDesk.blocked.paid'), body };
  }
  if (slip.status === 'under_review') return { title: t('cashDesk.blocked.recorded'), body: t('cashDesk.blocked.recordedBody') };
  if (slip.status === 'voided') {
    const body =
      slip.deposit?.status === 'rejected' && slip.deposit.review_reason
        ? t('cashDesk.blocked.voidedRejectedBody', { reason: slip.deposit.review_reason })
        : t('cashDesk.blocked.voidedBody');
    return { title: t('cashDesk.blocked.voided'), body };
  }
  if (slip.status === 'expired' || slip.session_status === 'expired') {
    return { title: t('cashDesk.blocked.expired'), body: t('cashDesk.blocked.expiredBody') };
  }
  if (slip.session_status === 'pending') {
    return { title: t('cashDesk.blocked.pending'), body: t('cashDesk.blocked.pendingBody') };
  }
  if (slip.session_status === 'failed') return { title: t('cashDesk.blocked.closed'), body: t('cashDesk.blocked.closedBody') };
  return { title: t('cashDesk.blocked.other'), body: t('cashDesk.blocked.otherBody') };
}

export function SlipPanel(props: {
  slip: { data: ScannedSlip | undefined; isPending: boolean; isError: boolean; error: unknown };
  counted: string;
  setCounted: (v: string) => void;
  note: string;
  setNote: (v: string) => void;
  amountError: string | null;
  onSubmit: (e: FormEvent) => void;
  pending: boolean;
  amountRef: React.RefObject<HTMLInputElement | null>;
  onNext: () => void;
}) {
  const errorText = useErrorText();
  const t = useT();
  const labels = useLabels();
  const locale = useAmountLocale();
  const { slip } = props;
  if (slip.isPending) return <Card><Loading label={t('cashDesk.lookingUp')} /></Card>;
  if (slip.isError || !slip.data) {
    const notFound = slip.error instanceof ApiError && slip.error.status === 404;
    return (
      <Card>
        <div className="bo-alert bo-alert--error" role="alert">
          {notFound
            ? t('cashDesk.noSlip')
            : errorText(slip.error)}
        </div>
        <button type="button" className="bo-btn bo-btn--secondary" onClick={props.onNext}>
          {t('cashDesk.scanAnother')}
        </button>
      </Card>
    );
  }
  const s = slip.data;
  const blocked = blockedReason(t, labels, s);
  const payment = s.session_status === 'success' && s.paid_rail ? t('cashDesk.paidBy', { rail: labels.rail(s.paid_rail) }) : labels.sessionStatus(s.session_status);
  return (
    <Card testId="scanned-slip">
      <div className="cd-slip__head">
        <div>
          <div className="cd-slip__merchant" data-testid="slip-merchant">
            <span translate="no">{s.merchant_name}</span>
            {s.mode === 'test' && <span className="cd-test-chip">{t('cashDesk.testChip')}</span>}
          </div>
          <div className="cd-slip__ref">
            {t('cashDesk.slipRef', { ref: () => <Mono key="r">{s.reference}</Mono> })}
          </div>
        </div>
        {!blocked && <StatusBadge status={s.status} kind="slip" />}
      </div>
      {blocked && (
        <div className="bo-alert bo-alert--error cd-blocked" role="alert" data-testid="slip-blocked">
          <strong className="cd-blocked__title">{blocked.title}</strong>
          <span>{blocked.body}</span>
        </div>
      )}
      <div className="cd-slip__amount" data-testid="slip-amount">
        {formatMoney(s.amount_minor, s.currency)}
      </div>
      <DetailList
        items={[
          [t('cashDesk.invoice'), <Mono key="i">{s.invoice_ref}</Mono>],
          [t('cashDesk.payer'), <span key="p" translate="no">{s.customer_name || '—'}</span>],
          [t('cashDesk.description'), <span key="d" translate="no">{s.description || '—'}</span>],
          [t('cashDesk.payment'), payment],
          [
            t('cashDesk.expires'),
            <time key="e" dateTime={s.expires_at}>
              {formatDateTime(s.expires_at)} ({formatRelative(s.expires_at)})
            </time>,
          ],
        ]}
      />
      {blocked ? (
        <button type="button" className="bo-btn bo-btn--secondary" onClick={props.onNext}>
          {t('cashDesk.scanAnother')}
        </button>
      ) : (
        <form className="cd-record" onSubmit={props.onSubmit} noValidate>
          <label htmlFor="counted" className="bo-label">
            {t('cashDesk.counted', { currency: s.currency })}
          </label>
          <div className="cd-scan__row">
            <input
              id="counted"
              ref={props.amountRef}
              className="bo-input bo-input--xl"
              inputMode="decimal"
              autoComplete="off"
              value={props.counted}
              onChange={(e) => props.setCounted(e.target.value)}
              placeholder={amountPlaceholder(s.currency, locale)}
              aria-invalid={props.amountError ? true : undefined}
              aria-describedby="counted-hint"
            />
            <button type="submit" className="bo-btn bo-btn--primary bo-btn--lg" disabled={props.pending}>
              {props.pending ? t('cashDesk.recording') : t('cashDesk.record')}
            </button>
          </div>
          {props.amountError ? (
            <p id="counted-hint" className="bo-field-error" role="alert">
              {props.amountError}
            </p>
          ) : (
            <p id="counted-hint" className="bo-hint">
              {t('cashDesk.countedHint', { kbd: (chunks) => <kbd className="bo-kbd">{chunks}</kbd> })}
            </p>
          )}
          <details className="cd-note">
            <summary>{t('cashDesk.addNote')}</summary>
            <input className="bo-input" value={props.note} onChange={(e) => props.setNote(e.target.value)} maxLength={500} aria-label={t('cashDesk.noteLabel')} />
          </details>
        </form>
      )}
    </Card>
  );
}
