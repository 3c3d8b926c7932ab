import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import type { ProviderPaymentInitiationResponse } from '../../shared/schemas/checkout';
import { attemptQuery, refreshSession, sessionQuery, startBankTransferAttempt } from './api';
import { CopyButton } from './copy-button';
import { describeDecline, formatClock, formatDateTime, formatMoney, formatRelative, minorToDecimal } from './format';
import { Spinner } from './icons';
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
          Pay by bank transfer
        </h2>
        <p className="step-lead">
          We will give you an account number and a payment reference. Transfer exactly{' '}
          <strong>{formatMoney(price.totalMinor, currency)}</strong> from your bank app or at your bank, quoting the reference, and
          this page confirms the payment when it arrives.
        </p>
        {error && (
          <div className="notice notice-error" role="alert">
            {error}
          </div>
        )}
        <button type="button" className="btn btn-primary btn-block" disabled={start.isPending} onClick={() => start.mutate()}>
          {start.isPending ? (
            <>
              <Spinner /> Getting details…
            </>
          ) : (
            'Get transfer details'
          )}
        </button>
        <button type="button" className="btn btn-link" onClick={onBack}>
          ← Choose another method
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
          {data.status === 'expired' ? 'Transfer window closed' : 'Transfer not accepted'}
        </h2>
        <div className="notice notice-error" role="alert">
          {data.status === 'expired'
            ? 'We did not receive your transfer before these details expired.'
            : `${describeDecline(data.decline_reason)} If money left your account, your bank will return it.`}
        </div>
        {data.session_status !== 'failed' && (
          <>
            <button type="button" className="btn btn-primary btn-block" onClick={onRetry}>
              Get new transfer details
            </button>
            <button type="button" className="btn btn-link" onClick={onBack}>
              ← Pay another way
            </button>
          </>
        )}
      </div>
    );
  }

  const rows: Array<{ label: string; value: string; copy?: string; strong?: boolean; testId?: string }> = [];
  rows.push({ label: 'Amount', value: formatMoney(amountMinor, cur), copy: minorToDecimal(amountMinor, cur), strong: true, testId: 'bt-amount' });
  if (instructions?.bank_name) rows.push({ label: 'Bank', value: instructions.bank_name });
  if (instructions?.account_number)
    rows.push({ label: 'Account number', value: instructions.account_number, copy: instructions.account_number, strong: true, testId: 'bt-account' });
  if (instructions?.account_name) rows.push({ label: 'Account name', value: instructions.account_name, copy: instructions.account_name });
  const reference = instructions?.payment_reference ?? null;
  if (reference) rows.push({ label: 'Payment reference', value: reference, copy: reference, strong: true, testId: 'bt-reference' });

  return (
    <div className="pay-form">
      <h2 ref={headingRef} tabIndex={-1} className="step-title">
        Transfer the money
      </h2>
      {instructions ? (
        <p className="step-lead">
          Send exactly this amount to the account below and put the <strong>payment reference</strong> in the transfer’s reference or
          narration field, so we can match it to your invoice.
        </p>
      ) : (
        <p className="step-lead">Your transfer details were issued earlier on this checkout. If you no longer have them, wait for them to expire and request new ones.</p>
      )}
      {rows.length > 1 && (
        <dl className="instructions" data-testid="bank-instructions">
          {rows.map((r) => (
            <div key={r.label} className="instructions-row">
              <dt>{r.label}</dt>
              <dd>
                <span className={r.strong ? 'mono strong' : ''} data-testid={r.testId}>
                  {r.value}
                </span>
                {r.copy && <CopyButton value={r.copy} label={r.label.toLowerCase()} />}
              </dd>
            </div>
          ))}
        </dl>
      )}
      {expiresAt && (
        <p className="step-lead">
          {left > 0 ? (
            <>
              Use these details before <strong>{formatDateTime(expiresAt)}</strong> ({left < 3600 ? `${formatClock(left)} left` : formatRelative(left)}).
            </>
          ) : (
            'These details have expired.'
          )}
        </p>
      )}
      {testMode && (
        <p className="field-hint">
          <span className="badge badge-test badge-sm">Test</span> No real transfer is needed: an operator confirms the sandbox transfer from the
          Paydesk back office or CLI, and this page follows.
        </p>
      )}
      <p className="live-status" role="status" aria-live="polite" data-testid="bt-status">
        {(!data || data.status === 'pending') && <Spinner />}
        {!data || data.status === 'pending'
          ? 'Waiting for your transfer. This page updates by itself once it arrives. You can also close it: the merchant is told when the payment is confirmed.'
          : 'Transfer received. Confirming…'}
      </p>
      {/* While the details are valid the checkout waits for the transfer (the session is pending):
          a second payment could collect the money twice, so other methods open again only after. */}
      <p className="field-hint" data-testid="bt-window-rule">
        Your checkout is reserved for this transfer until {expiresAt ? formatDateTime(expiresAt) : 'these details expire'}. If no transfer arrives by then,
        you can pay another way.
      </p>
    </div>
  );
}
