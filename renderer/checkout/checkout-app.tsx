import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Suspense, useEffect, useMemo, useState } from 'react';
import type { PublicCheckoutQuote, PublicCheckoutSession } from '../../shared/schemas/checkout';
import type { Rail } from '../../shared/schemas/common';
import { ApiError, describeError, optionsQuery, quoteQuery, refreshSession, sessionQuery } from './api';
import { LanguageSwitch, useT } from '../ui/i18n';
import { railLabel } from './format';
import { Spinner } from './icons';
import { ErrorNotice } from './notice';
import { MethodPicker, priceOf, type RailPrice } from './method-picker';
import { BankTransferPayment, CardPayment, CashPayment, MomoPayment } from './rail-screens';
import type { ResumableAttempt } from './resumable-attempt';
import { OrderSummary } from './order-summary';
import { ExpiredScreen, FailedScreen, LoadErrorScreen, NotFoundScreen, PendingScreen, RejectedDepositNotice, SuccessScreen } from './outcome-screens';
import { useFocusOnChange } from './use-focus';

export { sessionIdFromLocation } from './first-fetch';

function initials(name: string): string {
  const parts = name.trim().split(/\s+/).filter(Boolean);
  return ((parts[0]?.[0] ?? '') + (parts[1]?.[0] ?? '')).toUpperCase() || 'P';
}

export function CheckoutApp({ sessionId }: { sessionId: string | null }) {
  if (!sessionId) {
    return (
      <Shell session={null}>
        <div className="card card-narrow">
          <NotFoundScreen />
        </div>
      </Shell>
    );
  }
  return <Checkout sessionId={sessionId} />;
}

function Checkout({ sessionId }: { sessionId: string }) {
  const qc = useQueryClient();
  const t = useT();
  const session = useQuery(sessionQuery(sessionId));
  const s = session.data;

  if (session.isPending) {
    return (
      <Shell session={null}>
        <div className="card card-narrow loading-card" aria-busy="true">
          <Spinner label={t('checkout.loading')} />
          <p>{t('checkout.loadingLong')}</p>
        </div>
      </Shell>
    );
  }
  if (!s) {
    const err = session.error;
    return (
      <Shell session={null}>
        <div className="card card-narrow">
          {err instanceof ApiError && (err.status === 404 || err.status === 400) ? (
            <NotFoundScreen />
          ) : (
            <LoadErrorScreen message={describeError(t, err)} onRetry={() => void refreshSession(qc, sessionId)} />
          )}
        </div>
      </Shell>
    );
  }

  switch (s.status) {
    case 'success':
      return (
        <Shell session={s}>
          <div className="card card-narrow">
            <SuccessScreen session={s} />
          </div>
        </Shell>
      );
    case 'failed':
      return (
        <Shell session={s}>
          <div className="card card-narrow">
            <FailedScreen session={s} />
          </div>
        </Shell>
      );
    case 'expired':
      return (
        <Shell session={s}>
          <div className="card card-narrow">
            <ExpiredScreen session={s} />
          </div>
        </Shell>
      );
    case 'open':
    case 'pending':
      return <Payable session={s} />;
  }
}

function Payable({ session }: { session: PublicCheckoutSession }) {
  const qc = useQueryClient();
  const t = useT();
  const sessionId = session.id;
  const options = useQuery(optionsQuery());
  const quote = useQuery({ ...quoteQuery(sessionId), enabled: session.status === 'open' });
  const [selected, setSelected] = useState<Rail | null>(null);
  const [resume, setResume] = useState<ResumableAttempt | null>(null);
  const [notice, setNotice] = useState<'changed' | null>(null);

  // A reloaded page picks up the attempt still pending on this session (Mobile Money prompt, bank transfer).
  const pendingAttempt = session.pending_attempt;
  useEffect(() => {
    if (pendingAttempt && pendingAttempt.status === 'pending' && (pendingAttempt.rail === 'momo' || pendingAttempt.rail === 'bank_transfer')) {
      setResume((r) =>
        r?.ref === pendingAttempt.attempt_reference
          ? r
          : { rail: pendingAttempt.rail, ref: pendingAttempt.attempt_reference, instructions: pendingAttempt.instructions },
      );
      setSelected((cur) => cur ?? pendingAttempt.rail);
    }
  }, [pendingAttempt]);

  // A reloaded page shows the slip already issued, as it resumes other pending attempts.
  const issuedSlip = session.cash_slip?.status === 'active' ? session.cash_slip : null;
  const issuedToken = issuedSlip?.slip_token;
  useEffect(() => {
    // Keyed on the token: a poll that returns the same slip must not pull back a payer who chose another method.
    if (issuedToken) setSelected((cur) => cur ?? 'cash');
  }, [issuedToken]);

  // A rejected cash deposit sends the payer back to the methods, where the notice explains it.
  const rejectedAt = session.cash_rejection?.rejected_at;
  useEffect(() => {
    if (rejectedAt) setSelected((cur) => (cur === 'cash' ? null : cur));
  }, [rejectedAt]);

  // When expires_at passes, ask the server straight away rather than at the next slow poll.
  useEffect(() => {
    const ms = Date.parse(session.expires_at) - Date.now();
    if (Number.isNaN(ms) || session.status !== 'open') return;
    const t = window.setTimeout(() => void refreshSession(qc, sessionId), Math.min(Math.max(ms + 1_000, 0), 2 ** 31 - 1));
    return () => window.clearTimeout(t);
  }, [session.expires_at, session.status, qc, sessionId]);

  // The quote answers 409 once the session is no longer open: re-read the session instead of showing an error.
  useEffect(() => {
    if (quote.error instanceof ApiError && quote.error.isConflict) {
      setNotice('changed');
      void refreshSession(qc, sessionId);
    }
  }, [quote.error, qc, sessionId]);

  // If the quote changes under the payer (fees edited), keep the chosen method but the new total.
  const lastQuote = useLastDefined(quote.data);
  const price: RailPrice | null = useMemo(() => {
    if (!selected) return null;
    if (lastQuote) return priceOf(lastQuote, selected);
    return { rail: selected, feeMinor: 0, totalMinor: session.amount_minor, payerPays: false };
  }, [selected, lastQuote, session.amount_minor]);

  const headingRef = useFocusOnChange<HTMLHeadingElement>(selected, selected === null && notice === null ? false : true);

  // Pending with no flow of ours under way (e.g. a cash deposit the teller is reviewing): explain and wait.
  const flowInProgress = selected === 'momo' || selected === 'bank_transfer' || resume !== null;
  if (session.status === 'pending' && !flowInProgress) {
    return (
      <Shell session={session}>
        <div className="card card-narrow">
          <PendingScreen session={session} />
        </div>
      </Shell>
    );
  }

  const back = () => {
    setSelected(null);
    setResume(null);
    setNotice(null);
  };
  const resumed = resume && resume.rail === selected ? resume : null;
  const currency = lastQuote?.currency ?? session.currency;

  let body;
  if (!selected || !price) {
    body = (
      <div className="pay-form">
        <h2 ref={headingRef} tabIndex={-1} className="step-title">
          {t('checkout.howToPay')}
        </h2>
        {notice && (
          <div className="notice notice-info" role="status">
            {t('checkout.changedNotice')}
          </div>
        )}
        {session.cash_rejection && <RejectedDepositNotice rejection={session.cash_rejection} merchant={session.merchant_name} />}
        <QuoteState quote={lastQuote} error={quote.error} loading={quote.isPending && quote.fetchStatus !== 'idle'} onRetry={() => void quote.refetch()}>
          {(q) => <MethodPicker rails={session.allowed_rails} momoCountries={session.momo_countries} quote={q} onChoose={(r) => {
            setNotice(null);
            setSelected(r);
          }} />}
        </QuoteState>
      </div>
    );
  } else {
    switch (selected) {
      case 'momo':
        body = (
          <MomoPayment
            sessionId={sessionId}
            price={price}
            currency={currency}
            countries={session.momo_countries}
            resumeAttempt={resumed}
            testMode={session.mode === 'test'}
            onBack={back}
          />
        );
        break;
      case 'bank_transfer':
        body = (
          <BankTransferPayment sessionId={sessionId} price={price} currency={currency} resumeAttempt={resumed} testMode={session.mode === 'test'} onBack={back} />
        );
        break;
      case 'cash':
        body = (
          <CashPayment
            sessionId={sessionId}
            price={price}
            currency={currency}
            banks={options.data?.banks ?? []}
            initialSlip={issuedSlip}
            testMode={session.mode === 'test'}
            onBack={back}
          />
        );
        break;
      case 'card':
        body = <CardPayment sessionId={sessionId} price={price} currency={currency} testMode={session.card_collection_mode === 'test_simulation' || session.mode === 'test'} onBack={back} />;
        break;
    }
  }

  return (
    <Shell session={session}>
      <div className="layout">
        <OrderSummary session={session} selected={price} />
        <section className="panel" aria-label={selected ? t('checkout.payWith', { method: railLabel(t, selected) }) : t('checkout.paymentMethod')}>
          <Suspense fallback={<RailLoading />}>{body}</Suspense>
        </section>
      </div>
    </Shell>
  );
}

function QuoteState({
  quote,
  error,
  loading,
  onRetry,
  children,
}: {
  quote: PublicCheckoutQuote | undefined;
  error: Error | null;
  loading: boolean;
  onRetry: () => void;
  children: (q: PublicCheckoutQuote) => React.ReactNode;
}) {
  const t = useT();
  if (quote) return <>{children(quote)}</>;
  if (error && !(error instanceof ApiError && error.isConflict)) {
    return (
      <ErrorNotice>
        {describeError(t, error)}{' '}
        <button type="button" className="btn btn-link btn-inline" onClick={onRetry}>
          {t('checkout.tryAgain')}
        </button>
      </ErrorNotice>
    );
  }
  return (
    <ul className="methods methods-loading" aria-busy={loading} aria-label={t('checkout.loadingMethods')}>
      {[0, 1, 2, 3].map((i) => (
        <li key={i} className="method method-skeleton" />
      ))}
    </ul>
  );
}

/** While a rail's screen is on its way (its chunk loads when the payer chooses the rail). */
function RailLoading() {
  const t = useT();
  return (
    <div className="loading-card" aria-busy="true">
      <Spinner label={t('checkout.loading')} />
    </div>
  );
}

function useLastDefined<T>(value: T | undefined): T | undefined {
  const [last, setLast] = useState(value);
  if (value !== undefined && value !== last) setLast(value);
  return value ?? last;
}

function Shell({ session, children }: { session: PublicCheckoutSession | null; children: React.ReactNode }) {
  const t = useT();
  const title = session ? t('checkout.documentTitle', { merchant: session.merchant_name, invoice: session.invoice_ref }) : t('checkout.title');
  useEffect(() => {
    document.title = title;
  }, [title]);
  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        {t('checkout.skipToPayment')}
      </a>
      <header className="topbar">
        <div className="topbar-inner">
          {session ? (
            <div className="brand">
              <span className="brand-mark" aria-hidden="true" translate="no">
                {initials(session.merchant_name)}
              </span>
              <span className="brand-name" data-testid="merchant-name" translate="no">
                {session.merchant_name}
              </span>
            </div>
          ) : (
            <div className="brand">
              <span className="brand-name">{t('checkout.brand')}</span>
            </div>
          )}
          <div className="topbar-end">
            {session?.mode === 'test' && (
              <span className="badge badge-test" data-testid="test-mode-badge" title={t('checkout.sandboxNote')}>
                {t('checkout.testMode')}
              </span>
            )}
            <LanguageSwitch label={t('checkout.language')} className="language-switch" />
          </div>
        </div>
      </header>
      <main id="main" className="main">
        <h1 className="visually-hidden">
          {session ? t('checkout.payMerchant', { merchant: <span translate="no">{session.merchant_name}</span> }) : t('checkout.title')}
        </h1>
        {children}
      </main>
      <footer className="foot">
        <svg aria-hidden="true" viewBox="0 0 16 16" width="12" height="12">
          <rect x="3" y="7" width="10" height="7" rx="1.5" fill="currentColor" />
          <path d="M5.5 7V5a2.5 2.5 0 015 0v2" fill="none" stroke="currentColor" strokeWidth="1.5" />
        </svg>
        <span>{t('checkout.securedBy', { b: (chunks) => <strong translate="no">{chunks}</strong> })}</span>
        {session?.mode === 'test' && <span className="foot-sep">{t('checkout.sandboxNote')}</span>}
      </footer>
    </div>
  );
}
