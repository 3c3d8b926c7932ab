import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import type { ProviderPaymentInitiationResponse } from '../../shared/schemas/checkout';
import { attemptQuery, refreshSession, sessionQuery, startBankTransferAttempt } from './api';
import { CopyButton } from './copy-button';
import { useT } from '../ui/i18n';
import { describeDecline, formatClock, formatMoney, formatRelative, minorToDecimal } from './format';
import { When } from './when';
import { Spinner } from './icons';
import { ErrorNotice, PendingLabel } from './notice';
import type { RailPrice } from './method-picker';
import { int, str, type ResumableAttempt } from './resumable-attempt';
import { useCountdown } from './use-countdown';
import { useFocusOnChange } from './use-focus';
import { usePaymentErrors } from './use-payment-errors';

type Instructions = ProviderPaymentInitiationResponse['instructions'];

function fromSession(a: ResumableAttempt): Instructions {
  const i = a.instructions;
  return {
    mode: str(i.mode) ?? 'bank_transfer_instructions',
    rail: 'bank_transfer',
    bank_name: str(i.bank_name),
    account_number: str(i.account_number),
    account_name: str(i.account_name),
    payment_reference: str(i.payment_reference),
    amount_minor: int(i.amount_minor),
    currency: str(i.currency),
    expires_at: str(i.expires_at),
  };
}

export function BankTransferPayment({
  sessionId,
  price,
  currency,
  resumeAttempt,
  testMode,
  onBack,
}: {
  sessionId: string;
  price: RailPrice;
  currency: string;
  resumeAttempt: ResumableAttempt | null;
  testMode: boolean;
  onBack: () => void;
}) {
  const qc = useQueryClient();
  const t = useT();
  const explain = usePaymentErrors(sessionId);
  const [attemptRef, setAttemptRef] = useState<string | null>(resumeAttempt?.ref ?? null);
  const [instructions, setInstructions] = useState<Instructions | null>(() => (resumeAttempt ? fromSession(resumeAttempt) : null));
  const [error, setError] = useState<string | null>(null);
  const heading = useFocusOnChange<HTMLHeadingElement>(attemptRef);

  const start = useMutation({
    mutationFn: () => startBankTransferAttempt(sessionId, price.totalMinor),
    onSuccess: (res) => {
      setError(null);
      // A replay carries only the mode: the session's pending_attempt has the details then.
      setInstructions(res.instructions.account_number ? res.instructions : null);
      setAttemptRef(res.attempt_reference);
      void refreshSession(qc, sessionId);
    },
    onError: (err) => setError(explain(err)),
  });

  if (!attemptRef) {
    return (
      <div className="pay-form">
        <h2 ref={heading} tabIndex={-1} className="step-title">
          {t('checkout.bank.title')}
        </h2>
        <p className="step-lead">{t('checkout.bank.lead', { amount: <strong>{formatMoney(price.totalMinor, currency)}</strong> })}</p>
        {error && (
          <ErrorNotice>{error}</ErrorNotice>
        )}
        <button type="button" className="btn btn-primary btn-block" disabled={start.isPending} onClick={() => start.mutate()}>
          <PendingLabel pending={start.isPending} busy={t('checkout.bank.getting')} idle={t('checkout.bank.get')} />
        </button>
        <button type="button" className="btn btn-link" onClick={onBack}>
          {t('checkout.chooseAnother')}
        </button>
      </div>
    );
  }

  return (
    <TransferInstructions
      sessionId={sessionId}
      attemptRef={attemptRef}
      instructions={instructions}
      price={price}
      currency={currency}
      headingRef={heading}
      testMode={testMode}
      onRetry={() => {
        setAttemptRef(null);
        setInstructions(null);
      }}
      onBack={onBack}
    />
  );
}

function TransferInstructions({
  sessionId,
  attemptRef,
  instructions: given,
  price,
  currency,
  headingRef,
  testMode,
  onRetry,
  onBack,
}: {
  sessionId: string;
  attemptRef: string;
  instructions: Instructions | null;
  price: RailPrice;
  currency: string;
  headingRef: React.RefObject<HTMLHeadingElement | null>;
  testMode: boolean;
  onRetry: () => void;
  onBack: () => void;
}) {
  const qc = useQueryClient();
  const t = useT();
  const status = useQuery(attemptQuery(sessionId, attemptRef, 5_000));
  const data = status.data;
  // After a replayed request (details issued earlier) the session's pending_attempt carries them.
  const pendingAttempt = useQuery(sessionQuery(sessionId)).data?.pending_attempt;
  const instructions =
    given ??
    (pendingAttempt?.attempt_reference === attemptRef
      ? fromSession({ rail: 'bank_transfer', ref: attemptRef, instructions: pendingAttempt.instructions })
      : null);
  const amountMinor = instructions?.amount_minor ?? price.totalMinor;
  const cur = instructions?.currency ?? currency;
  const expiresAt = instructions?.expires_at ?? null;
  const expiresMs = expiresAt ? Date.parse(expiresAt) : NaN;
  const left = useCountdown(Number.isNaN(expiresMs) ? null : expiresMs);

  useEffect(() => {
    if (data && data.status !== 'pending' && (data.status !== 'succeeded' || data.finalized)) void refreshSession(qc, sessionId);
  }, [data, qc, sessionId]);

  if (data && (data.status === 'declined' || data.status === 'expired')) {
    return (
      <div className="pay-form">
        <h2 ref={headingRef} tabIndex={-1} className="step-title">
          {data.status === 'expired' ? t('checkout.bank.closedTitle') : t('checkout.bank.refusedTitle')}
        </h2>
        <ErrorNotice>
          {data.status === 'expired' ? t('checkout.bank.closedLead') : t('checkout.bank.refusedLead', { reason: describeDecline(t, data.decline_reason) })}
        </ErrorNotice>
        {data.session_status !== 'failed' && (
          <>
            <button type="button" className="btn btn-primary btn-block" onClick={onRetry}>
              {t('checkout.bank.getNew')}
            </button>
            <button type="button" className="btn btn-link" onClick={onBack}>
              {t('checkout.payAnotherWayBack')}
            </button>
          </>
        )}
      </div>
    );
  }

  // `copyLabel` names the value in "Copy …" (lower case inside a sentence).
  const rows: Array<{ key: string; label: string; copyLabel: string; value: string; copy?: string; strong?: boolean; testId?: string; keep?: boolean }> = [];
  rows.push({
    key: 'amount',
    label: t('checkout.bank.amount'),
    copyLabel: t('checkout.bank.amountLower'),
    value: formatMoney(amountMinor, cur),
    copy: minorToDecimal(amountMinor, cur),
    strong: true,
    testId: 'bt-amount',
  });
  if (instructions?.bank_name) rows.push({ key: 'bank', label: t('checkout.bank.bank'), copyLabel: '', value: instructions.bank_name, keep: true });
  if (instructions?.account_number)
    rows.push({
      key: 'account',
      label: t('checkout.bank.accountNumber'),
      copyLabel: t('checkout.bank.accountNumberLower'),
      value: instructions.account_number,
      copy: instructions.account_number,
      strong: true,
      testId: 'bt-account',
      keep: true,
    });
  if (instructions?.account_name)
    rows.push({
      key: 'name',
      label: t('checkout.bank.accountName'),
      copyLabel: t('checkout.bank.accountNameLower'),
      value: instructions.account_name,
      copy: instructions.account_name,
      keep: true,
    });
  const reference = instructions?.payment_reference ?? null;
  if (reference)
    rows.push({
      key: 'reference',
      label: t('checkout.bank.reference'),
      copyLabel: t('checkout.bank.referenceLower'),
      value: reference,
      copy: reference,
      strong: true,
      testId: 'bt-reference',
      keep: true,
    });

  return (
    <div className="pay-form">
      <h2 ref={headingRef} tabIndex={-1} className="step-title">
        {t('checkout.bank.transferTitle')}
      </h2>
      {instructions ? (
        <p className="step-lead">{t('checkout.bank.transferLead', { b: (chunks) => <strong>{chunks}</strong> })}</p>
      ) : (
        <p className="step-lead">{t('checkout.bank.issuedEarlier')}</p>
      )}
      {rows.length > 1 && (
        <dl className="instructions" data-testid="bank-instructions">
          {rows.map((r) => (
            <div key={r.key} className="instructions-row">
              <dt>{r.label}</dt>
              <dd>
                <span className={r.strong ? 'mono strong' : ''} data-testid={r.testId} translate={r.keep ? 'no' : undefined}>
                  {r.value}
                </span>
                {r.copy && <CopyButton value={r.copy} label={r.copyLabel} />}
              </dd>
            </div>
          ))}
        </dl>
      )}
      {expiresAt && (
        <p className="step-lead">
          {left > 0
            ? t('checkout.bank.useBefore', {
                when: (
                  <strong>
                    <When iso={expiresAt} />
                  </strong>
                ),
                left: left < 3600 ? t('checkout.bank.clockLeft', { clock: formatClock(left) }) : formatRelative(left),
              })
            : t('checkout.bank.detailsExpired')}
        </p>
      )}
      {testMode && (
        <p className="field-hint">
          <span className="badge badge-test badge-sm">{t('checkout.testBadge')}</span> {t('checkout.bank.testHint')}
        </p>
      )}
      <p className="live-status" role="status" aria-live="polite" data-testid="bt-status">
        {(!data || data.status === 'pending') && <Spinner />}
        {!data || data.status === 'pending' ? t('checkout.bank.waiting') : t('checkout.bank.received')}
      </p>
      {/* While the details are valid the checkout waits for the transfer (the session is pending):
          a second payment could collect the money twice, so other methods open again only after. */}
      <p className="field-hint" data-testid="bt-window-rule">
        {expiresAt ? t('checkout.bank.reservedUntil', { when: <When iso={expiresAt} /> }) : t('checkout.bank.reserved')}
      </p>
    </div>
  );
}
