import type { ReactNode } from 'react';
import type { PublicCheckoutSession } from '../../shared/schemas/checkout';
import { RAIL_LABELS, formatDateTime, formatMoney, safeHttpUrl } from './format';
import { OutcomeIcon, Spinner } from './icons';
import { useFocusOnChange } from './use-focus';

function ReturnLink({ session, label, quiet = false }: { session: PublicCheckoutSession; label: string; quiet?: boolean }) {
  const href = safeHttpUrl(session.return_to_merchant_url);
  if (!href) return null;
  return (
    <a className={`btn ${quiet ? 'btn-secondary' : 'btn-primary'} btn-block`} href={href} rel="noopener" data-testid="return-to-merchant">
      {label}
    </a>
  );
}

function Outcome({
  kind,
  title,
  children,
  testId,
}: {
  kind: 'success' | 'failed' | 'expired' | 'pending' | 'missing';
  title: string;
  children: ReactNode;
  testId: string;
}) {
  const heading = useFocusOnChange<HTMLHeadingElement>(kind);
  return (
    <div className={`outcome outcome-${kind}`} data-testid={testId}>
      <OutcomeIcon kind={kind} />
      <h2 ref={heading} tabIndex={-1} className="outcome-title">
        {title}
      </h2>
      {children}
    </div>
  );
}

function Receipt({ session }: { session: PublicCheckoutSession }) {
  return (
    <dl className="receipt">
      <div>
        <dt>Merchant</dt>
        <dd>{session.merchant_name}</dd>
      </div>
      <div>
        <dt>Invoice</dt>
        <dd>{session.invoice_ref}</dd>
      </div>
      <div>
        <dt>Invoice amount</dt>
        <dd>{formatMoney(session.amount_minor, session.currency)}</dd>
      </div>
      <div>
        <dt>Checkout</dt>
        <dd className="mono small">{session.id}</dd>
      </div>
    </dl>
  );
}

const REFERENCE_LABELS: Record<string, string> = {
  cash: 'Slip reference',
  bank_transfer: 'Transfer reference',
  momo: 'Mobile Money reference',
  card: 'Card payment reference',
};

/** What was paid, when and under which reference: the payer's receipt, printable or saved as PDF. */
function PaymentReceipt({ session }: { session: PublicCheckoutSession }) {
  const p = session.payment;
  if (!p) return <Receipt session={session} />;
  return (
    <div className="payer-receipt" data-testid="payment-receipt">
      {session.mode === 'test' && (
        <p className="print-test-mark" data-testid="receipt-test-mark">
          TEST payment · sandbox · no real money moved
        </p>
      )}
      <p className="payer-receipt__title">Payment receipt</p>
      <dl className="receipt">
        <div className="receipt-total">
          <dt>Amount paid</dt>
          <dd data-testid="receipt-amount">{formatMoney(p.amount_charged_minor, p.currency)}</dd>
        </div>
        {p.fee_minor > 0 && p.amount_charged_minor !== p.base_minor && (
          <div>
            <dt>Of which</dt>
            <dd>
              {formatMoney(p.base_minor, p.currency)} invoice + {formatMoney(p.fee_minor, p.currency)} fee
            </dd>
          </div>
        )}
        <div>
          <dt>Paid on</dt>
          <dd data-testid="receipt-date">{formatDateTime(p.paid_at)}</dd>
        </div>
        <div>
          <dt>Paid with</dt>
          <dd>{RAIL_LABELS[p.rail]}</dd>
        </div>
        <div>
          <dt>{REFERENCE_LABELS[p.rail] ?? 'Reference'}</dt>
          <dd className="mono" data-testid="receipt-reference">
            {p.reference}
          </dd>
        </div>
        <div>
          <dt>Merchant</dt>
          <dd>{session.merchant_name}</dd>
        </div>
        <div>
          <dt>Invoice</dt>
          <dd>{session.invoice_ref}</dd>
        </div>
        <div>
          <dt>Checkout</dt>
          <dd className="mono small">{session.id}</dd>
        </div>
      </dl>
      <p className="payer-receipt__keep">Keep this receipt: quote the reference to {session.merchant_name} if you ever need to.</p>
    </div>
  );
}

export function SuccessScreen({ session }: { session: PublicCheckoutSession }) {
  return (
    <Outcome kind="success" title="Payment successful" testId="screen-success">
      <p className="outcome-lead" role="status">
        Your payment to {session.merchant_name} for invoice <strong>{session.invoice_ref}</strong> is complete.
      </p>
      <PaymentReceipt session={session} />
      {session.payment && (
        <button type="button" className="btn btn-secondary btn-block no-print" onClick={() => window.print()}>
          Print or save as PDF
        </button>
      )}
      <ReturnLink session={session} label={`Return to ${session.merchant_name}`} />
      <p className="outcome-note no-print">You can close this page.</p>
    </Outcome>
  );
}

/**
 * A cash deposit the bank's supervisor rejected: the payer learns it plainly, with the reason,
 * and what to do about the cash they handed over (docs/checkout.md, "Rejected cash deposit").
 */
export function RejectedDepositNotice({ rejection: r, merchant }: { rejection: NonNullable<PublicCheckoutSession['cash_rejection']>; merchant: string }) {
  return (
    <div className="notice notice-error rejected-deposit" role="alert" data-testid="deposit-rejected">
      <p className="rejected-deposit__title">Your cash deposit was not accepted</p>
      <p>
        The bank rejected the deposit of <strong>{formatMoney(r.amount_minor, r.currency)}</strong> on slip <span className="mono">{r.slip_reference}</span>{' '}
        ({formatDateTime(r.rejected_at)}). Reason: <strong data-testid="deposit-rejected-reason">{r.reason}</strong>
      </p>
      <p>
        <strong>Your cash:</strong> go back to the branch with the receipt the teller gave you; the bank returns the cash it did not accept.{' '}
        {merchant} has not been paid.
      </p>
      <p>To pay, choose a method below. A new cash slip works too.</p>
    </div>
  );
}

export function FailedScreen({ session }: { session: PublicCheckoutSession }) {
  return (
    <Outcome kind="failed" title="Payment failed" testId="screen-failed">
      <p className="outcome-lead" role="status">
        This checkout could not be paid and is now closed. No money was taken for it.
      </p>
      <Receipt session={session} />
      <ReturnLink session={session} label={`Return to ${session.merchant_name} to try again`} />
      {!safeHttpUrl(session.return_to_merchant_url) && <p className="outcome-note">Contact {session.merchant_name} for a new payment link.</p>}
    </Outcome>
  );
}

export function ExpiredScreen({ session }: { session: PublicCheckoutSession }) {
  return (
    <Outcome kind="expired" title="This checkout has expired" testId="screen-expired">
      <p className="outcome-lead" role="status">
        The payment link for invoice <strong>{session.invoice_ref}</strong> expired on {formatDateTime(session.expires_at)}. No payment was
        taken.
      </p>
      <ReturnLink session={session} label={`Return to ${session.merchant_name}`} />
      {!safeHttpUrl(session.return_to_merchant_url) && <p className="outcome-note">Ask {session.merchant_name} for a new payment link.</p>}
    </Outcome>
  );
}

/** Pending with nothing for the payer to do here: a cash deposit under teller review, or a provider still confirming. */
export function PendingScreen({ session }: { session: PublicCheckoutSession }) {
  return (
    <Outcome kind="pending" title="Your payment is being confirmed" testId="screen-pending">
      <p className="outcome-lead">
        We have your payment for invoice <strong>{session.invoice_ref}</strong> and are waiting for the final confirmation. A cash
        deposit is confirmed once the bank has reviewed it, which usually takes a few minutes during banking hours.
      </p>
      <p className="live-status" role="status" aria-live="polite">
        <Spinner /> Waiting for confirmation. This page updates by itself.
      </p>
      <p className="outcome-note">
        You can close this page: {session.merchant_name} is told as soon as the payment is confirmed. Do not pay again.
      </p>
      <ReturnLink session={session} label={`Return to ${session.merchant_name}`} quiet />
    </Outcome>
  );
}

export function NotFoundScreen() {
  return (
    <Outcome kind="missing" title="Checkout not found" testId="screen-not-found">
      <p className="outcome-lead">This payment link is not valid. Check the link you were given, or ask the merchant for a new one.</p>
    </Outcome>
  );
}

export function LoadErrorScreen({ message, onRetry }: { message: string; onRetry: () => void }) {
  return (
    <Outcome kind="failed" title="We could not load this checkout" testId="screen-load-error">
      <p className="outcome-lead" role="alert">
        {message}
      </p>
      <button type="button" className="btn btn-primary btn-block" onClick={onRetry}>
        Try again
      </button>
    </Outcome>
  );
}
