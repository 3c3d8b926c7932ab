import { useMutation, useQueryClient } from '@tanstack/react-query';
import { MAX_DECLINED_ATTEMPTS } from '../../shared/checkout-limits';
import type { ProviderPaymentStatusResponse } from '../../shared/schemas/checkout';
import { refreshSession, startMomoAttempt } from './api';
import { useT } from '../ui/i18n';
import { describeDecline } from './format';
import { ErrorNotice, PendingLabel } from './notice';
import type { RailPrice } from './method-picker';
import { useFocusOnChange } from './use-focus';
import { usePaymentErrors } from './use-payment-errors';

export interface MomoAttemptRef {
  reference: string;
  operator: string;
  last4: string;
}

/**
 * A declined or expired Mobile Money request. A decline ends only that request, never the
 * checkout (until the anti-abuse cap), so the payer gets a new request to the same number in
 * one step, or goes back to change the number or the method.
 */
export function MomoDeclined({
  sessionId,
  data,
  price,
  retryWith,
  onStarted,
  onRetry,
}: {
  sessionId: string;
  data: ProviderPaymentStatusResponse;
  price: RailPrice;
  /** The number and network of the declined request, when this page sent it (not after a reload). */
  retryWith: { operator: string; phone: string; country: string } | null;
  onStarted: (a: MomoAttemptRef) => void;
  onRetry: () => void;
}) {
  const qc = useQueryClient();
  const t = useT();
  const explain = usePaymentErrors(sessionId);
  const heading = useFocusOnChange<HTMLHeadingElement>();
  const again = useMutation({
    mutationFn: (w: { operator: string; phone: string; country: string }) =>
      startMomoAttempt(sessionId, { amount_minor: price.totalMinor, operator: w.operator, phone: w.phone, ...(w.country ? { country: w.country } : {}) }),
    onSuccess: (res, w) => {
      void refreshSession(qc, sessionId);
      onStarted({ reference: res.attempt_reference, operator: res.instructions.operator ?? w.operator, last4: res.instructions.phone_last4 ?? w.phone.replace(/\D/g, '').slice(-4) });
    },
  });
  const expired = data.status === 'expired';
  const failed = data.session_status === 'failed';
  return (
    <div className="pay-form">
      <h2 ref={heading} tabIndex={-1} className="step-title">
        {expired ? t('checkout.momo.expiredTitle') : t('checkout.momo.declinedTitle')}
      </h2>
      <ErrorNotice testId="momo-declined">
        {expired ? t('checkout.momo.expiredLead') : t('checkout.momo.declinedLead', { reason: describeDecline(t, data.decline_reason) })}
      </ErrorNotice>
      {failed ? (
        <p className="step-lead">{t('checkout.momo.noMoreAttempts')}</p>
      ) : (
        <>
          <p className="step-lead" data-testid="momo-retry-rule">
            {t(expired ? 'checkout.momo.retryRuleExpired' : 'checkout.momo.retryRuleDeclined', { max: MAX_DECLINED_ATTEMPTS })}
          </p>
          {again.isError && (
            <ErrorNotice>{explain(again.error)}</ErrorNotice>
          )}
          {retryWith ? (
            <>
              <button type="button" className="btn btn-primary btn-block" disabled={again.isPending} onClick={() => again.mutate(retryWith)}>
                <PendingLabel pending={again.isPending} busy={t('checkout.momo.sending')} idle={t('checkout.momo.sendAgain', { last4: <span translate="no">••{retryWith.phone.slice(-4)}</span> })} />
              </button>
              <button type="button" className="btn btn-link" onClick={onRetry}>
                {t('checkout.momo.otherNumber')}
              </button>
            </>
          ) : (
            <button type="button" className="btn btn-primary btn-block" onClick={onRetry}>
              {t('checkout.tryAgain')}
            </button>
          )}
        </>
      )}
    </div>
  );
}
