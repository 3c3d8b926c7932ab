import { useState } from 'react';
import type { PublicCheckoutSession } from '../../shared/schemas/checkout';
import type { Rail } from '../../shared/schemas/common';
import { useT } from '../ui/i18n';
import { formatClock, formatMoney, formatRelative, railLabel } from './format';
import { When } from './when';
import { useCountdown } from './use-countdown';

export interface SelectedTotal {
  rail: Rail;
  feeMinor: number;
  totalMinor: number;
}

/** What is being paid for: merchant, invoice, line items, the amount due and the time left. */
export function OrderSummary({ session, selected }: { session: PublicCheckoutSession; selected: SelectedTotal | null }) {
  const t = useT();
  const [open, setOpen] = useState(false);
  const expiresMs = Date.parse(session.expires_at);
  const left = useCountdown(Number.isNaN(expiresMs) ? null : expiresMs);
  const showFee = selected !== null && selected.feeMinor > 0;
  const due = selected ? selected.totalMinor : session.amount_minor;
  const hasItems = session.line_items.length > 0;
  // A pending session does not expire (a prompt, a transfer window or a review is under way): its own screen shows that deadline.
  const showsExpiry = session.status === 'open';

  return (
    // Once a method is chosen, a phone folds the invoice details into "Show details" too, so
    // the payment form starts near the top (CSS: .summary--compact below 880 px).
    <section className={`summary${selected && (hasItems || showFee) ? ' summary--compact' : ''}${open ? ' is-expanded' : ''}`} aria-labelledby="summary-heading">
      <h2 id="summary-heading" className="visually-hidden">
        {t('checkout.summary.title')}
      </h2>
      {/* Label and figure, not a heading: divs so assistive tech reads them as one statement. */}
      <div className="summary-label">{showFee ? t('checkout.summary.totalToPay') : t('checkout.summary.amountDue')}</div>
      <div className="summary-amount" data-testid="amount-due">
        {formatMoney(due, session.currency)}
      </div>
      {showFee && (
        <p className="summary-fee-note">
          {t('checkout.summary.includesFee', { fee: formatMoney(selected.feeMinor, session.currency), method: railLabel(t, selected.rail) })}
        </p>
      )}

      <dl className="summary-meta">
        <div>
          <dt>{t('checkout.invoice')}</dt>
          <dd data-testid="invoice-ref" translate="no">
            {session.invoice_ref}
          </dd>
        </div>
        {session.description && (
          <div>
            <dt>{t('checkout.for')}</dt>
            <dd translate="no">{session.description}</dd>
          </div>
        )}
        {session.customer_name && (
          <div>
            <dt>{t('checkout.summary.billedTo')}</dt>
            <dd translate="no">{session.customer_name}</dd>
          </div>
        )}
      </dl>

      {(hasItems || showFee) && (
        <div className={`summary-lines${open ? ' is-open' : ''}`}>
          <button
            type="button"
            className="summary-toggle"
            aria-expanded={open}
            aria-controls="summary-lines-list"
            onClick={() => setOpen((o) => !o)}
          >
            {open
              ? t('checkout.summary.hideDetails')
              : hasItems
                ? t('checkout.summary.showDetailsItems', { count: session.line_items.length })
                : t('checkout.summary.showDetails')}
            <svg aria-hidden="true" viewBox="0 0 12 12" width="12" height="12">
              <path d="M3 4.5l3 3 3-3" fill="none" stroke="currentColor" strokeWidth="1.6" strokeLinecap="round" />
            </svg>
          </button>
          <div id="summary-lines-list" className="summary-lines-body">
            {hasItems && (
              <ul className="line-items">
                {session.line_items.map((item, i) => (
                  <li key={`${item.code}-${i}`}>
                    <span className="line-name" translate="no">
                      {item.name}
                      <span className="line-code">{item.code}</span>
                    </span>
                    <span className="line-amount">{formatMoney(item.amount_minor, item.currency || session.currency)}</span>
                  </li>
                ))}
              </ul>
            )}
            <dl className="totals">
              <div>
                <dt>{t('checkout.summary.subtotal')}</dt>
                <dd>{formatMoney(session.amount_minor, session.currency)}</dd>
              </div>
              {showFee && (
                <div>
                  <dt>{t('checkout.summary.methodFee', { method: railLabel(t, selected.rail) })}</dt>
                  <dd>{formatMoney(selected.feeMinor, session.currency)}</dd>
                </div>
              )}
              <div className="totals-grand">
                <dt>{t('checkout.summary.total')}</dt>
                <dd>{formatMoney(due, session.currency)}</dd>
              </div>
            </dl>
          </div>
        </div>
      )}

      {showsExpiry && (
        <p className={`summary-expiry${left > 0 && left < 300 ? ' is-urgent' : ''}`}>
          <svg aria-hidden="true" viewBox="0 0 16 16" width="14" height="14">
            <circle cx="8" cy="8" r="6.25" fill="none" stroke="currentColor" strokeWidth="1.5" />
            <path d="M8 4.5V8l2.2 1.6" fill="none" stroke="currentColor" strokeWidth="1.5" strokeLinecap="round" />
          </svg>
          {left > 0 ? (
            <span>
              {left < 3600 ? t('checkout.summary.expiresIn', { clock: formatClock(left) }) : t('checkout.summary.expiresRelative', { when: formatRelative(left) })}
              <span className="summary-expiry-at">
                {' · '}
                <When iso={session.expires_at} />
              </span>
            </span>
          ) : (
            <span>{t('checkout.summary.expired')}</span>
          )}
        </p>
      )}
    </section>
  );
}
