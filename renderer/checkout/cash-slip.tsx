import { useMutation, useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import type { CashDepositSlipResponse, PublicCheckoutOptions } from '../../shared/schemas/checkout';
import { issueCashSlip, sessionQuery } from './api';
import { Barcode, preloadBarcodes } from './barcode';
import { formatDateTime, formatMoney } from './format';
import { Spinner } from './icons';
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
          Pay cash at a bank
        </h2>
        <ol className="steps-list">
          <li>Create your deposit slip. Print it or keep it on your phone.</li>
          <li>
            Take it to any branch listed on the slip and pay <strong>{formatMoney(price.totalMinor, currency)}</strong> in cash.
          </li>
          <li>The teller scans the code. Once the bank confirms the deposit, your payment is complete.</li>
        </ol>
        {error && (
          <div className="notice notice-error" role="alert">
            {error}
          </div>
        )}
        <button type="button" className="btn btn-primary btn-block" disabled={issue.isPending} onClick={() => issue.mutate()}>
          {issue.isPending ? (
            <>
              <Spinner /> Creating slip…
            </>
          ) : (
            'Create deposit slip'
          )}
        </button>
        <button type="button" className="btn btn-link" onClick={onBack}>
          ← Choose another method
        </button>
      </div>
    );
  }

  return (
    <div className="pay-form">
      <div className="slip-toolbar no-print">
        <h2 ref={heading} tabIndex={-1} className="step-title">
          Your deposit slip
        </h2>
        <p className="step-lead">
          {slip.replayed ? 'This is the deposit slip already issued for this checkout. ' : ''}
          Print it or show it on your phone at any listed branch before it expires.
        </p>
        <div className="btn-row">
          <button type="button" className="btn btn-primary" onClick={() => window.print()}>
            <svg aria-hidden="true" viewBox="0 0 20 20" width="16" height="16">
              <path d="M5 7V2.5h10V7M5 14.5H3.5a1 1 0 01-1-1V8a1 1 0 011-1h13a1 1 0 011 1v5.5a1 1 0 01-1 1H15M5 11.5h10v6H5z" fill="none" stroke="currentColor" strokeWidth="1.6" strokeLinejoin="round" />
            </svg>
            Print slip
          </button>
          <button type="button" className="btn btn-secondary" onClick={onBack}>
            Pay another way
          </button>
        </div>
      </div>
      <DepositSlip slip={slip} banks={banks} testMode={testMode} />
    </div>
  );
}

/** The printable slip. In print, everything else on the page is hidden (see @media print). */
export function DepositSlip({ slip, banks, testMode }: { slip: CashDepositSlipResponse; banks: Bank[]; testMode: boolean }) {
  const branchCount = banks.reduce((n, b) => n + b.branches.length, 0);
  return (
    <article className="slip" aria-labelledby="slip-title" data-testid="deposit-slip">
      {testMode && (
        <p className="print-test-mark" data-testid="slip-test-mark">
          TEST slip · sandbox · no real money moves
        </p>
      )}
      <header className="slip-head">
        <div>
          <p className="slip-kicker">Cash deposit slip</p>
          <h3 id="slip-title" className="slip-merchant">
            {slip.merchant_name}
          </h3>
        </div>
        <div className="slip-amount-box">
          <span>Amount to pay</span>
          <strong data-testid="slip-amount">{formatMoney(slip.amount_minor, slip.currency)}</strong>
        </div>
      </header>

      <div className="slip-codes">
        <Barcode kind="qrcode" value={slip.slip_token} label="QR code of the slip token" className="slip-qr" />
        <div className="slip-codes-side">
          <p className="slip-ref-label">Slip reference</p>
          <p className="slip-ref" data-testid="slip-reference">
            {slip.reference}
          </p>
          <p className="slip-ref-help">Quote this reference if the code cannot be scanned.</p>
        </div>
      </div>
      <div className="slip-barcode-wrap">
        <Barcode kind="code128" value={slip.slip_token} label="Code 128 barcode of the slip token" className="slip-barcode" />
        <p className="slip-token mono">{slip.slip_token}</p>
      </div>

      <dl className="slip-details">
        <div>
          <dt>Invoice</dt>
          <dd>{slip.invoice_ref}</dd>
        </div>
        {slip.customer_name && (
          <div>
            <dt>Payer</dt>
            <dd>{slip.customer_name}</dd>
          </div>
        )}
        {slip.description && (
          <div className="span-2">
            <dt>For</dt>
            <dd>{slip.description}</dd>
          </div>
        )}
        <div>
          <dt>Valid until</dt>
          <dd data-testid="slip-expiry">{formatDateTime(slip.expires_at)}</dd>
        </div>
        <div>
          <dt>Checkout</dt>
          <dd className="mono small">{slip.session_reference}</dd>
        </div>
      </dl>

      <section className="slip-banks" aria-labelledby="slip-banks-title">
        <h4 id="slip-banks-title">
          Pay at any of these branches{branchCount ? ` (${branchCount})` : ''}
        </h4>
        {banks.length === 0 ? (
          <p>Ask the merchant where this slip can be paid.</p>
        ) : (
          <ul className="bank-list">
            {banks.map((b) => (
              <li key={b.id}>
                <strong>{b.name}</strong>
                <span>{b.branches.map((br) => br.name).join(' · ') || 'All branches'}</span>
              </li>
            ))}
          </ul>
        )}
      </section>

      <footer className="slip-foot">
        Pay the exact amount in cash. The teller scans the code or types the slip reference. Keep your bank receipt until the merchant confirms
        the payment. This slip is valid once and only until the time above.
      </footer>
    </article>
  );
}
