import type { ReactNode } from 'react';
import type { PublicCheckoutSession } from '../../shared/schemas/checkout';
import { useT } from '../ui/i18n';
import { formatMoney, railLabel, safeHttpUrl } from './format';
import { OutcomeIcon, Spinner } from './icons';
import { useFocusOnChange } from './use-focus';
import { When } from './when';

/** Merchant-supplied text and references inside a sentence: never translated. */
const keep = (text: string) => <span translate="no">{text}</span>;
const strongKeep = (text: string) => <strong translate="no">{text}</strong>;

function ReturnLink({ session, label, quiet = false }: { session: PublicCheckoutSession; label: ReactNode; quiet?: boolean }) {
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
  const t = useT();
  return (
    <dl className="receipt">
      <div>
        <dt>{t('checkout.merchant')}</dt>
        <dd translate="no">{session.merchant_name}</dd>
      </div>
      <div>
        <dt>{t('checkout.invoice')}</dt>
        <dd translate="no">{session.invoice_ref}</dd>
      </div>
      <div>
        <dt>{t('checkout.receipt.invoiceAmount')}</dt>
        <dd>{formatMoney(session.amount_minor, session.currency)}</dd>
      </div>
      <div>
        <dt>{t('checkout.checkoutId')}</dt>
        <dd className="mono small" translate="no">
          {session.id}
        </dd>
      </div>
    </dl>
  );
}

const REFERENCE_LABEL_IDS: Record<string, string> = {
  cash: 'checkout.receipt.slipReference',
  bank_transfer: 'checkout.receipt.transferReference',
  momo: 'checkout.receipt.momoReference',
  card: 'checkout.receipt.cardReference',
};

/** What was paid, when and under which reference: the payer's receipt, printable or saved as PDF. */
function PaymentReceipt({ session }: { session: PublicCheckoutSession }) {
  const t = useT();
  const p = session.payment;
  if (!p) return <Receipt session={session} />;
  return (
    <div className="payer-receipt" data-testid="payment-receipt">
      {session.mode === 'test' && (
        <p className="print-test-mark" data-testid="receipt-test-mark">
          {t('checkout.receipt.testMark')}
        </p>
      )}
      <p className="payer-receipt__title">{t('checkout.receipt.title')}</p>
      <dl className="receipt">
        <div className="receipt-total">
          <dt>{t('checkout.receipt.amountPaid')}</dt>
          <dd data-testid="receipt-amount">{formatMoney(p.amount_charged_minor, p.currency)}</dd>
        </div>
        {p.fee_minor > 0 && p.amount_charged_minor !== p.base_minor && (
          <div>
            <dt>{t('checkout.receipt.ofWhich')}</dt>
            <dd>{t('checkout.receipt.split', { invoice: formatMoney(p.base_minor, p.currency), fee: formatMoney(p.fee_minor, p.currency) })}</dd>
          </div>
        )}
        <div>
          <dt>{t('checkout.receipt.paidOn')}</dt>
          <dd data-testid="receipt-date">
            <When iso={p.paid_at} />
          </dd>
        </div>
        <div>
          <dt>{t('checkout.receipt.paidWith')}</dt>
          <dd>{railLabel(t, p.rail)}</dd>
        </div>
        <div>
          <dt>{t(REFERENCE_LABEL_IDS[p.rail] ?? 'checkout.receipt.reference')}</dt>
          <dd className="mono" data-testid="receipt-reference" translate="no">
            {p.reference}
          </dd>
        </div>
        <div>
          <dt>{t('checkout.merchant')}</dt>
          <dd translate="no">{session.merchant_name}</dd>
        </div>
        <div>
          <dt>{t('checkout.invoice')}</dt>
          <dd translate="no">{session.invoice_ref}</dd>
        </div>
        <div>
          <dt>{t('checkout.checkoutId')}</dt>
          <dd className="mono small" translate="no">
            {session.id}
          </dd>
        </div>
      </dl>
      <p className="payer-receipt__keep">{t('checkout.receipt.keep', { merchant: keep(session.merchant_name) })}</p>
    </div>
  );
}

export function SuccessScreen({ session }: { session: PublicCheckoutSession }) {
  const t = useT();
  return (
    <Outcome kind="success" title={t('checkout.success.title')} testId="screen-success">
      <p className="outcome-lead" role="status">
        {t('checkout.success.lead', { merchant: keep(session.merchant_name), invoice: strongKeep(session.invoice_ref) })}
      </p>
      <PaymentReceipt session={session} />
      {session.payment && (
        <button type="button" className="btn btn-secondary btn-block no-print" onClick={() => window.print()}>
          {t('checkout.success.print')}
        </button>
      )}
      <ReturnLink session={session} label={t('checkout.returnTo', { merchant: keep(session.merchant_name) })} />
      <p className="outcome-note no-print">{t('checkout.success.close')}</p>
    </Outcome>
  );
}

/**
 * A cash deposit the bank's supervisor rejected: the payer learns it plainly, with the reason,
 * and what to do about the cash they handed over (docs/checkout.md, "Rejected cash deposit").
 */
export function RejectedDepositNotice({ rejection: r, merchant }: { rejection: NonNullable<PublicCheckoutSession['cash_rejection']>; merchant: string }) {
  const t = useT();
  return (
    <div className="notice notice-error rejected-deposit" role="alert" data-testid="deposit-rejected">
      <p className="rejected-deposit__title">{t('checkout.rejected.title')}</p>
      <p>
        {t('checkout.rejected.what', {
          amount: <strong>{formatMoney(r.amount_minor, r.currency)}</strong>,
          slip: (
            <span className="mono" translate="no">
              {r.slip_reference}
            </span>
          ),
          when: <When iso={r.rejected_at} />,
          // The supervisor's own words, as typed.
          reason: (
            <strong data-testid="deposit-rejected-reason" translate="no">
              {r.reason}
            </strong>
          ),
        })}
      </p>
      <p>{t('checkout.rejected.cash', { b: (chunks) => <strong>{chunks}</strong>, merchant: keep(merchant) })}</p>
      <p>{t('checkout.rejected.payAgain')}</p>
    </div>
  );
}

export function FailedScreen({ session }: { session: PublicCheckoutSession }) {
  const t = useT();
  return (
    <Outcome kind="failed" title={t('checkout.failed.title')} testId="screen-failed">
      <p className="outcome-lead" role="status">
        {t('checkout.failed.lead')}
      </p>
      <Receipt session={session} />
      <ReturnLink session={session} label={t('checkout.failed.returnTo', { merchant: keep(session.merchant_name) })} />
      {!safeHttpUrl(session.return_to_merchant_url) && (
        <p className="outcome-note">{t('checkout.failed.contact', { merchant: keep(session.merchant_name) })}</p>
      )}
    </Outcome>
  );
}

export function ExpiredScreen({ session }: { session: PublicCheckoutSession }) {
  const t = useT();
  return (
    <Outcome kind="expired" title={t('checkout.expired.title')} testId="screen-expired">
      <p className="outcome-lead" role="status">
        {t('checkout.expired.lead', { invoice: strongKeep(session.invoice_ref), when: <When iso={session.expires_at} /> })}
      </p>
      <ReturnLink session={session} label={t('checkout.returnTo', { merchant: keep(session.merchant_name) })} />
      {!safeHttpUrl(session.return_to_merchant_url) && (
        <p className="outcome-note">{t('checkout.expired.ask', { merchant: keep(session.merchant_name) })}</p>
      )}
    </Outcome>
  );
}

/** Pending with nothing for the payer to do here: a cash deposit under teller review, or a provider still confirming. */
export function PendingScreen({ session }: { session: PublicCheckoutSession }) {
  const t = useT();
  return (
    <Outcome kind="pending" title={t('checkout.pending.title')} testId="screen-pending">
      <p className="outcome-lead">{t('checkout.pending.lead', { invoice: strongKeep(session.invoice_ref) })}</p>
      <p className="live-status" role="status" aria-live="polite">
        <Spinner /> {t('checkout.pending.status')}
      </p>
      <p className="outcome-note">{t('checkout.pending.note', { merchant: keep(session.merchant_name) })}</p>
      <ReturnLink session={session} label={t('checkout.returnTo', { merchant: keep(session.merchant_name) })} quiet />
    </Outcome>
  );
}

export function NotFoundScreen() {
  const t = useT();
  return (
    <Outcome kind="missing" title={t('checkout.notFound.title')} testId="screen-not-found">
      <p className="outcome-lead">{t('checkout.notFound.lead')}</p>
    </Outcome>
  );
}

export function LoadErrorScreen({ message, onRetry }: { message: string; onRetry: () => void }) {
  const t = useT();
  return (
    <Outcome kind="failed" title={t('checkout.loadError.title')} testId="screen-load-error">
      <p className="outcome-lead" role="alert">
        {message}
      </p>
      <button type="button" className="btn btn-primary btn-block" onClick={onRetry}>
        {t('checkout.tryAgain')}
      </button>
    </Outcome>
  );
}
