import type { FormEvent } from 'react';
import type { ScannedSlip } from '../../../../shared/schemas/backoffice';
import { ApiError } from '../../api/client';
import { useErrorText } from '../common/error-text';
import { amountPlaceholder, formatDateTime, formatMoney, formatRelative, railLabel, useAmountLocale } from '../common/format';
import { SESSION_STATUS_LABELS } from '../../../../shared/labels';
import { Card, DetailList, Loading, Mono, StatusBadge } from '../../../ui/blocks';

/** Why a scanned slip cannot take a deposit, in the teller's words: a headline and what to do. */
export function blockedReason(slip: ScannedSlip): { title: string; body: string } | null {
  if (slip.can_record) return null;
  // Paid is checked first: whatever became of the slip, the one thing the teller must know is not to take cash.
  if (slip.session_status === 'success' || slip.status === 'used') {
    const how = slip.paid_rail && slip.paid_rail !== 'cash' ? `by ${railLabel(slip.paid_rail).toLowerCase()}` : 'in cash at a counter';
    return {
      title: 'Already paid — do not take cash',
      body: `This checkout was already paid ${how}. The payer owes nothing on this slip; give back any cash they handed over.`,
    };
  }
  if (slip.status === 'under_review') return { title: 'Already recorded', body: 'A deposit on this slip is already waiting for a supervisor. Do not take cash for it again.' };
  if (slip.status === 'voided') {
    const reason = slip.deposit?.status === 'rejected' && slip.deposit.review_reason ? ` The deposit on it was rejected: ${slip.deposit.review_reason}.` : '';
    return { title: 'Slip cancelled', body: `This slip can no longer be paid.${reason} The payer needs a new slip from the checkout page.` };
  }
  if (slip.status === 'expired' || slip.session_status === 'expired') {
    return { title: 'Slip expired', body: 'This slip has expired. The payer needs a new checkout link from the merchant. Do not take cash for it.' };
  }
  if (slip.session_status === 'pending') {
    return { title: 'Another payment is in progress', body: 'The payer has started paying this checkout another way. Do not take cash now; they can come back if that payment fails.' };
  }
  if (slip.session_status === 'failed') return { title: 'Checkout closed', body: 'This checkout was closed without payment. The payer needs a new checkout link from the merchant.' };
  return { title: 'Cannot take a deposit', body: 'This slip cannot take a deposit now.' };
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
  const locale = useAmountLocale();
  const { slip } = props;
  if (slip.isPending) return <Card><Loading label="Looking up the slip…" /></Card>;
  if (slip.isError || !slip.data) {
    const notFound = slip.error instanceof ApiError && slip.error.status === 404;
    return (
      <Card>
        <div className="bo-alert bo-alert--error" role="alert">
          {notFound
            ? 'No slip has this token or reference. Check it against the slip: the reference looks like PD-7K3M-Q9TX (letters and digits, no need for the dashes). Or scan the barcode again.'
            : errorText(slip.error)}
        </div>
        <button type="button" className="bo-btn bo-btn--secondary" onClick={props.onNext}>
          Scan another slip
        </button>
      </Card>
    );
  }
  const s = slip.data;
  const blocked = blockedReason(s);
  const payment = s.session_status === 'success' && s.paid_rail ? `Paid (${railLabel(s.paid_rail)})` : (SESSION_STATUS_LABELS[s.session_status] ?? s.session_status);
  return (
    <Card testId="scanned-slip">
      <div className="cd-slip__head">
        <div>
          <div className="cd-slip__merchant" data-testid="slip-merchant">
            {s.merchant_name}
            {s.mode === 'test' && <span className="cd-test-chip">TEST</span>}
          </div>
          <div className="cd-slip__ref">
            Slip <Mono>{s.reference}</Mono>
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
          ['Invoice', <Mono key="i">{s.invoice_ref}</Mono>],
          ['Payer', s.customer_name || '—'],
          ['Description', s.description || '—'],
          ['Payment', payment],
          ['Expires', `${formatDateTime(s.expires_at)} (${formatRelative(s.expires_at)})`],
        ]}
      />
      {blocked ? (
        <button type="button" className="bo-btn bo-btn--secondary" onClick={props.onNext}>
          Scan another slip
        </button>
      ) : (
        <form className="cd-record" onSubmit={props.onSubmit} noValidate>
          <label htmlFor="counted" className="bo-label">
            Counted cash ({s.currency})
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
              {props.pending ? 'Recording…' : 'Record deposit'}
            </button>
          </div>
          {props.amountError ? (
            <p id="counted-hint" className="bo-field-error" role="alert">
              {props.amountError}
            </p>
          ) : (
            <p id="counted-hint" className="bo-hint">
              Type what you counted and press <kbd className="bo-kbd">Enter</kbd>. It must equal the slip amount. <kbd className="bo-kbd">Esc</kbd> cancels.
            </p>
          )}
          <details className="cd-note">
            <summary>Add a note</summary>
            <input className="bo-input" value={props.note} onChange={(e) => props.setNote(e.target.value)} maxLength={500} aria-label="Note for the supervisor" />
          </details>
        </form>
      )}
    </Card>
  );
}
