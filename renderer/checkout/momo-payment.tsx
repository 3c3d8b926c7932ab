import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import type { ProviderPaymentStatusResponse } from '../../shared/schemas/checkout';
import { ApiError, attemptQuery, authorizeAttempt, checkoutKeys, refreshSession, resendAttemptCode } from './api';
import { MomoForm, plausiblePhone } from './momo-form';
import { useT, type T } from '../ui/i18n';
import { formatClock, formatMoney, networkName } from './format';
import { Spinner } from './icons';
import { PendingLabel } from './notice';
import { useCountdown } from './use-countdown';
import { useFocusOnChange } from './use-focus';
import { usePaymentErrors } from './use-payment-errors';
import type { RailPrice } from './method-picker';
import { str, type ResumableAttempt } from './resumable-attempt';
import { MomoDeclined, type MomoAttemptRef } from './momo-declined';



type Attempt = MomoAttemptRef;

export function MomoPayment({
  sessionId,
  price,
  currency,
  countries,
  resumeAttempt,
  testMode,
  onBack,
}: {
  sessionId: string;
  price: RailPrice;
  currency: string;
  /** The session's Mobile Money countries (its currency's). */
  countries: string[];
  resumeAttempt: ResumableAttempt | null;
  testMode: boolean;
  onBack: () => void;
}) {
  const [attempt, setAttempt] = useState<Attempt | null>(
    resumeAttempt
      ? {
          reference: resumeAttempt.ref,
          operator: str(resumeAttempt.instructions.operator) ?? '',
          last4: str(resumeAttempt.instructions.phone_last4) ?? '',
        }
      : null,
  );
  const [phone, setPhone] = useState('');
  const [operator, setOperator] = useState('');
  const [country, setCountry] = useState(countries[0] ?? '');
  // What the form sent, so a declined request can be sent again in one step.
  const sentTo = attempt && operator && plausiblePhone(phone) ? { operator, phone: phone.trim(), country } : null;
  return attempt ? (
    <MomoApprove
      key={attempt.reference}
      sessionId={sessionId}
      attempt={attempt}
      price={price}
      currency={currency}
      testMode={testMode}
      retryWith={sentTo}
      onStarted={setAttempt}
      onRetry={() => setAttempt(null)}
    />
  ) : (
    <MomoForm
      sessionId={sessionId}
      price={price}
      currency={currency}
      countries={countries}
      country={country}
      phone={phone}
      operator={operator}
      onCountry={(c) => {
        setCountry(c);
        setOperator('');
      }}
      onPhone={setPhone}
      onOperator={setOperator}
      onStarted={setAttempt}
      onBack={onBack}
      focusHeading={resumeAttempt === null}
    />
  );
}


function statusLine(t: T, s: ProviderPaymentStatusResponse | undefined): string {
  if (!s) return t('checkout.momo.status.checking');
  switch (s.status) {
    case 'pending':
      return t('checkout.momo.status.pending');
    case 'succeeded':
      return s.finalized ? t('checkout.momo.status.approved') : t('checkout.momo.status.confirming');
    case 'declined':
      return t('checkout.decline.declined');
    case 'expired':
      return t('checkout.momo.status.expired');
  }
}

function MomoApprove({
  sessionId,
  attempt,
  price,
  currency,
  testMode,
  retryWith,
  onStarted,
  onRetry,
}: {
  sessionId: string;
  attempt: Attempt;
  price: RailPrice;
  currency: string;
  testMode: boolean;
  retryWith: { operator: string; phone: string; country: string } | null;
  onStarted: (a: Attempt) => void;
  onRetry: () => void;
}) {
  const qc = useQueryClient();
  const t = useT();
  const explain = usePaymentErrors(sessionId);
  const id = useId();
  const heading = useFocusOnChange<HTMLHeadingElement>();
  const status = useQuery(attemptQuery(sessionId, attempt.reference));
  const [code, setCode] = useState('');
  const [codeError, setCodeError] = useState<string | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const [rateLimitedUntil, setRateLimitedUntil] = useState<number | null>(null);
  const codeRef = useRef<HTMLInputElement>(null);
  const data = status.data;
  const pending = !data || data.status === 'pending';

  // Resend cooldown: the server says how long (resend_available_in_seconds on every status answer,
  // retry_after_seconds on a 429); the deadline is fixed at the moment the answer arrived.
  const fromStatus = data ? status.dataUpdatedAt + data.resend_available_in_seconds * 1000 : null;
  const deadline = Math.max(fromStatus ?? 0, rateLimitedUntil ?? 0) || null;
  const resendIn = useCountdown(deadline);

  const finished = data && data.status !== 'pending';
  useEffect(() => {
    if (!data) return;
    // Once the attempt settles, the session has moved (success, back to open, or failed): re-read it.
    if (data.status !== 'pending' && (data.status !== 'succeeded' || data.finalized)) void refreshSession(qc, sessionId);
  }, [data, qc, sessionId]);

  const applyStatus = (res: ProviderPaymentStatusResponse) => qc.setQueryData(checkoutKeys.attempt(sessionId, attempt.reference), res);

  const authorize = useMutation({
    mutationFn: (c: string) => authorizeAttempt(sessionId, attempt.reference, c),
    onSuccess: (res) => {
      setMessage(null);
      applyStatus(res);
    },
    onError: (err) => setMessage(explain(err)),
  });
  const resend = useMutation({
    mutationFn: () => resendAttemptCode(sessionId, attempt.reference),
    onSuccess: (res) => {
      applyStatus(res);
      setRateLimitedUntil(null);
      setMessage(t('checkout.momo.codeResent'));
      codeRef.current?.focus();
    },
    onError: (err) => {
      if (err instanceof ApiError && err.status === 429) {
        setRateLimitedUntil(Date.now() + (err.retryAfterSeconds ?? 30) * 1000);
        setMessage(null);
        return;
      }
      setMessage(explain(err));
    },
  });

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const c = code.replace(/\s/g, '');
    if (!/^\d{4,8}$/.test(c)) {
      setCodeError(t('checkout.momo.codeInvalid'));
      codeRef.current?.focus();
      return;
    }
    setCodeError(null);
    authorize.mutate(c);
  };

  const network = networkName(t, attempt.operator);

  if (finished && (data.status === 'declined' || data.status === 'expired')) {
    return <MomoDeclined sessionId={sessionId} data={data} price={price} retryWith={retryWith} onStarted={onStarted} onRetry={onRetry} />;
  }

  return (
    <div className="pay-form">
      <h2 ref={heading} tabIndex={-1} className="step-title">
        {t('checkout.momo.approveTitle')}
      </h2>
      <div className="phone-prompt">
        <div className="phone-graphic" aria-hidden="true">
          <svg viewBox="0 0 48 72" width="44" height="66">
            <rect x="3" y="2" width="42" height="68" rx="7" fill="#fff" stroke="currentColor" strokeWidth="3" />
            <rect x="10" y="14" width="28" height="22" rx="3" fill="currentColor" opacity="0.12" />
            <path d="M17 25l5 5 9-9" fill="none" stroke="currentColor" strokeWidth="3" strokeLinecap="round" strokeLinejoin="round" />
            <path d="M19 62h10" stroke="currentColor" strokeWidth="3" strokeLinecap="round" />
          </svg>
          {pending && <span className="pulse" />}
        </div>
        <p>
          {t(attempt.last4 ? 'checkout.momo.sentTo' : 'checkout.momo.sentToNoDigits', {
            amount: <strong>{formatMoney(data?.amount_charged_minor ?? price.totalMinor, data?.currency ?? currency)}</strong>,
            network,
            last4: (
              <strong data-testid="phone-last4" translate="no">
                {attempt.last4}
              </strong>
            ),
          })}
        </p>
      </div>

      <p className="live-status" role="status" aria-live="polite" data-testid="momo-status">
        {pending && <Spinner />}
        {statusLine(t, data)}
      </p>

      {pending && (
        <>
          <form onSubmit={submit} noValidate className="code-form">
            <div className={`field${codeError ? ' has-error' : ''}`}>
              <label htmlFor={`${id}-code`}>{t('checkout.momo.code')}</label>
              <input
                id={`${id}-code`}
                ref={codeRef}
                name="code"
                className="code-input"
                inputMode="numeric"
                autoComplete="one-time-code"
                maxLength={8}
                placeholder="••••••"
                value={code}
                onChange={(e) => {
                  setCode(e.target.value.replace(/[^\d]/g, ''));
                  setCodeError(null);
                }}
                aria-invalid={codeError ? true : undefined}
                aria-describedby={[testMode ? `${id}-code-hint` : '', codeError ? `${id}-code-err` : ''].filter(Boolean).join(' ') || undefined}
              />
              {testMode && (
                <p className="field-hint" id={`${id}-code-hint`}>
                  <span className="badge badge-test badge-sm">{t('checkout.testBadge')}</span> {t('checkout.momo.testHint', { code: '123456' })}
                </p>
              )}
              {codeError && (
                <p className="field-error" id={`${id}-code-err`}>
                  {codeError}
                </p>
              )}
            </div>
            <button type="submit" className="btn btn-primary btn-block" disabled={authorize.isPending}>
              <PendingLabel pending={authorize.isPending} busy={t('checkout.momo.confirming')} idle={t('checkout.momo.confirm')} />
            </button>
          </form>

          <div className="resend-row">
            <span>{t('checkout.momo.noCode')}</span>
            <button type="button" className="btn btn-link" disabled={resendIn > 0 || resend.isPending} onClick={() => resend.mutate()}>
              {t('checkout.momo.resend')}
              {resendIn > 0 && (
                <span className="resend-timer" data-testid="resend-countdown">
                  {' '}
                  {t('checkout.momo.resendIn', { clock: formatClock(resendIn) })}
                </span>
              )}
            </button>
          </div>
        </>
      )}

      {message && (
        <div className="notice notice-info" role="status">
          {message}
        </div>
      )}
      {status.isError && !data && (
        <div className="notice notice-warning" role="status">
          {t('checkout.momo.statusUnavailable')}
        </div>
      )}
    </div>
  );
}
