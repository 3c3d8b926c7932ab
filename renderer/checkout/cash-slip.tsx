import { useMutation, useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import type { CashDepositSlipResponse, PublicCheckoutOptions } from '../../shared/schemas/checkout';
import { issueCashSlip, sessionQuery } from './api';
import { Barcode, preloadBarcodes } from './barcode';
import { useT } from '../ui/i18n';
import { formatMoney } from './format';
import { When } from './when';
import { ErrorNotice, PendingLabel } from './notice';
import type { RailPrice } from './method-picker';
import { useFocusOnChange } from './use-focus';
import { usePaymentErrors } from './use-payment-errors';
type Bank = PublicCheckoutOptions['banks'][number];

export function CashPayment({
  sessionId,
  price,
  currency,
  banks,
  initialSlip,
  testMode,
  onBack,
}: {
  sessionId: string;
  price: RailPrice;
  currency: string;
  banks: Bank[];
  /** The slip already issued for this session (after a reload, the session carries it). */
  initialSlip: CashDepositSlipResponse | null;
  testMode: boolean;
  onBack: () => void;
}) {
  const t = useT();
  const explain = usePaymentErrors(sessionId);
  useEffect(preloadBarcodes, []);
  const [slip, setSlip] = useState<CashDepositSlipResponse | null>(initialSlip);
  const [error, setError] = useState<string | null>(null);
  const heading = useFocusOnChange<HTMLHeadingElement>(slip?.slip_token ?? null);
  // While the payer holds a slip, watch the session closely: a teller recording the deposit turns
  // it pending (the page then explains the review), an approval turns it success.
  useQuery({ ...sessionQuery(sessionId), refetchInterval: slip ? 5_000 : false });

  // Issuing is idempotent on the server: a second call returns the active slip with replayed: true,
  // which is also how a payer who comes back gets the same slip again.
  const issue = useMutation({
    mutationFn: () => issueCashSlip(sessionId, price.totalMinor),
    onSuccess: (res) => {
      setError(null);
      setSlip(res);
    },
    onError: (err) => setError(explain(err)),
  });

  if (!slip) {
    return (
      <div className="pay-form">
        <h2 ref={heading} tabIndex={-1} className="step-title">
          {t('checkout.cash.title')}
        </h2>
        <ol className="steps-list">
          <li>{t('checkout.cash.step1')}</li>
          <li>{t('checkout.cash.step2', { amount: <strong>{formatMoney(price.totalMinor, currency)}</strong> })}</li>
          <li>{t('checkout.cash.step3')}</li>
        </ol>
        {error && (
          <ErrorNotice>{error}</ErrorNotice>
        )}
        <button type="button" className="btn btn-primary btn-block" disabled={issue.isPending} onClick={() => issue.mutate()}>
          <PendingLabel pending={issue.isPending} busy={t('checkout.cash.creating')} idle={t('checkout.cash.create')} />
        </button>
        <button type="button" className="btn btn-link" onClick={onBack}>
          {t('checkout.chooseAnother')}
        </button>
      </div>
    );
  }

  return (
    <div className="pay-form">
      <div className="slip-toolbar no-print">
        <h2 ref={heading} tabIndex={-1} className="step-title">
          {t('checkout.cash.slipTitle')}
        </h2>
        <p className="step-lead">{slip.replayed ? t('checkout.cash.slipLeadReplayed') : t('checkout.cash.slipLead')}</p>
        <div className="btn-row">
          <button type="button" className="btn btn-primary" onClick={() => window.print()}>
            <svg aria-hidden="true" viewBox="0 0 20 20" width="16" height="16">
              <path d="M5 7V2.5h10V7M5 14.5H3.5a1 1 0 01-1-1V8a1 1 0 011-1h13a1 1 0 011 1v5.5a1 1 0 01-1 1H15M5 11.5h10v6H5z" fill="none" stroke="currentColor" strokeWidth="1.6" strokeLinejoin="round" />
            </svg>
            {t('checkout.cash.print')}
          </button>
          <button type="button" className="btn btn-secondary" onClick={onBack}>
            {t('checkout.payAnotherWay')}
          </button>
        </div>
      </div>
      <DepositSlip slip={slip} banks={banks} testMode={testMode} />
    </div>
  );
}

/** The printable slip. In print, everything else on the page is hidden (see @media print). */
function DepositSlip({ slip, banks, testMode }: { slip: CashDepositSlipResponse; banks: Bank[]; testMode: boolean }) {
  const t = useT();
  const branchCount = banks.reduce((n, b) => n + b.branches.length, 0);
  return (
    <article className="slip" aria-labelledby="slip-title" data-testid="deposit-slip">
      {testMode && (
        <p className="print-test-mark" data-testid="slip-test-mark">
          {t('checkout.slip.testMark')}
        </p>
      )}
      <header className="slip-head">
        <div>
          <p className="slip-kicker">{t('checkout.slip.kicker')}</p>
          <h3 id="slip-title" className="slip-merchant" translate="no">
            {slip.merchant_name}
          </h3>
        </div>
        <div className="slip-amount-box">
          <span>{t('checkout.slip.amount')}</span>
          <strong data-testid="slip-amount">{formatMoney(slip.amount_minor, slip.currency)}</strong>
        </div>
      </header>

      <div className="slip-codes">
        <Barcode kind="qrcode" value={slip.slip_token} label={t('checkout.slip.qrLabel')} className="slip-qr" />
        <div className="slip-codes-side">
          <p className="slip-ref-label">{t('checkout.slip.reference')}</p>
          {/* A value read beside its label, not a heading or a paragraph of its own. */}
          <div className="slip-ref" data-testid="slip-reference" translate="no">
            {slip.reference}
          </div>
          <p className="slip-ref-help">{t('checkout.slip.referenceHelp')}</p>
        </div>
      </div>
      <div className="slip-barcode-wrap">
        <Barcode kind="code128" value={slip.slip_token} label={t('checkout.slip.barcodeLabel')} className="slip-barcode" />
        <p className="slip-token mono" translate="no">
          {slip.slip_token}
        </p>
      </div>

      <dl className="slip-details">
        <div>
          <dt>{t('checkout.invoice')}</dt>
          <dd translate="no">{slip.invoice_ref}</dd>
        </div>
        {slip.customer_name && (
          <div>
            <dt>{t('checkout.slip.payer')}</dt>
            <dd translate="no">{slip.customer_name}</dd>
          </div>
        )}
        {slip.description && (
          <div className="span-2">
            <dt>{t('checkout.for')}</dt>
            <dd translate="no">{slip.description}</dd>
          </div>
        )}
        <div>
          <dt>{t('checkout.slip.validUntil')}</dt>
          <dd data-testid="slip-expiry">
            <When iso={slip.expires_at} />
          </dd>
        </div>
        <div>
          <dt>{t('checkout.checkoutId')}</dt>
          <dd className="mono small" translate="no">
            {slip.session_reference}
          </dd>
        </div>
      </dl>

      <section className="slip-banks" aria-labelledby="slip-banks-title">
        <h4 id="slip-banks-title">
          {branchCount ? t('checkout.slip.branchesCount', { count: branchCount }) : t('checkout.slip.branches')}
        </h4>
        {banks.length === 0 ? (
          <p>{t('checkout.slip.noBanks')}</p>
        ) : (
          <ul className="bank-list">
            {banks.map((b) => (
              <li key={b.id}>
                <strong translate="no">{b.name}</strong>
                {b.branches.length ? <span translate="no">{b.branches.map((br) => br.name).join(' · ')}</span> : <span>{t('checkout.slip.allBranches')}</span>}
              </li>
            ))}
          </ul>
        )}
      </section>

      <footer className="slip-foot">
        {t('checkout.slip.foot')}
      </footer>
    </article>
  );
}
