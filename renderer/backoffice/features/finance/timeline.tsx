import type { ReactNode } from 'react';
import type { TimelineEntry } from '../../../../shared/schemas/backoffice';
import { cardBrandLabel, declineReasonLabel } from '../../../../shared/labels';
import { networkLabel } from '../../../../shared/countries';
import { useT, type T } from '../../../ui/i18n';
import { labelsWith } from '../common/labels';
import { formatDateTime, formatMoney } from '../common/format';
import { CopyId } from '../../../ui/blocks';
import timelineMessages from './timeline.messages';

const REF_WORDS: Partial<Record<string, 'net.refAttempt' | 'net.refDeposit' | 'net.refEvent'>> = { attempt: 'net.refAttempt', deposit: 'net.refDeposit', event: 'net.refEvent' };

/** What a person typed or a name: shown as written, never translated. */
const asTyped = (v: string) => <span translate="no">{v}</span>;

/**
 * A session's timeline, oldest first: each line's title and detail in the reader's language,
 * from their codes and arguments (the API's `title` and `detail` are English); amounts in the
 * reader's number format, names and notes as typed.
 */
export function SessionTimeline({ entries }: { entries: TimelineEntry[] }) {
  const t = useT();
  return (
    <ol className="bo-timeline">
      {entries.map((e, i) => {
        const detail = timelineDetail(t, e);
        return (
          <li key={`${e.at}-${i}`} className="bo-timeline__item">
            <span className={`bo-timeline__dot bo-timeline__dot--${e.kind}`} aria-hidden="true" />
            <div className="bo-timeline__title">{timelineTitle(t, e)}</div>
            <div className="bo-timeline__meta">
              <time dateTime={e.at}>{formatDateTime(e.at, { seconds: true })}</time>
            </div>
            {detail !== null && (
              <div className="bo-timeline__meta" data-testid="timeline-detail">
                {detail}
              </div>
            )}
            {e.ref && e.kind !== 'created' && e.kind !== 'slip' && e.kind !== 'delivery' && (
              <div className="bo-timeline__meta">
                <CopyId value={e.ref} what={t(REF_WORDS[e.kind] ?? 'net.refEvent')} />
              </div>
            )}
          </li>
        );
      })}
    </ol>
  );
}

/** A timeline line's title in the reader's language, from its code (the API's `title` is English). */
function timelineTitle(t: T, e: TimelineEntry): ReactNode {
  // An event's type as the select of its messages names it: completed, failed, expired.
  const eventWord = (type: string) => type.replace(/^checkout\.session\./, '');
  const arg = (name: string) => String(e.args[name] ?? '');
  switch (e.code) {
    case 'session_created':
      return t('finance.timeline.session_created');
    case 'transition':
      return t('finance.timeline.transition', { from: t('finance.timeline.status', { status: arg('from') }), to: t('finance.timeline.status', { status: arg('to') }) });
    case 'attempt_started':
      return t('finance.timeline.attempt_started', { rail: labelsWith(t).rail(arg('rail')) });
    case 'attempt_finished':
      return t('finance.timeline.attempt_finished', { rail: labelsWith(t).rail(arg('rail')), status: arg('status') });
    case 'slip_issued':
      return t('finance.timeline.slip_issued', { reference: asTyped(arg('reference')) });
    case 'deposit_recorded':
      return t('finance.timeline.deposit_recorded');
    case 'deposit_reviewed':
      return t('finance.timeline.deposit_reviewed', { status: arg('status') });
    case 'event':
      return t('finance.timeline.event', { type: eventWord(arg('type')) });
    case 'webhook_delivered':
      return t('finance.timeline.webhook_delivered', { type: eventWord(arg('type')) });
    case 'webhook_failed': {
      const when = e.args.at === null || e.args.at === undefined ? '' : formatDateTime(arg('at'), { seconds: true });
      const reason = t('finance.timeline.webhook_reason', { reason: arg('reason'), code: arg('status_code') });
      return t('finance.timeline.webhook_failed', { type: eventWord(arg('type')), reason, then: arg('then'), at: when });
    }
    case 'webhook_held':
      return t('finance.timeline.webhook_held', { type: eventWord(arg('type')) });
  }
}

type DetailCode = NonNullable<TimelineEntry['detail_code']>;
type CauseCode = Extract<DetailCode, `cause_${string}`>;

/**
 * The message of each cause of a status change (`cause_other` aside: the server's own words). Its
 * arguments are the same for all: the payment, its status, a deadline, who, why and how many.
 */
const CAUSES: Record<Exclude<CauseCode, 'cause_other'>, keyof (typeof timelineMessages)['en']> = {
  cause_prompt_sent: 'finance.detail.cause.promptSent',
  cause_instructions_issued: 'finance.detail.cause.instructionsIssued',
  cause_sent_to_provider: 'finance.detail.cause.sentToProvider',
  cause_provider_refused: 'finance.detail.cause.providerRefused',
  cause_settled_at_initiation: 'finance.detail.cause.settledAtInitiation',
  cause_approved_by_payer: 'finance.detail.cause.approvedByPayer',
  cause_confirmed_on_resend: 'finance.detail.cause.confirmedOnResend',
  cause_approved: 'finance.detail.cause.approved',
  cause_confirmed_on_refresh: 'finance.detail.cause.confirmedOnRefresh',
  cause_transfer_received: 'finance.detail.cause.transferReceived',
  cause_attempt_ended: 'finance.detail.cause.attemptEnded',
  cause_prompt_expired: 'finance.detail.cause.promptExpired',
  cause_transfer_window_ended: 'finance.detail.cause.transferWindowEnded',
  cause_deposit_recorded: 'finance.detail.cause.depositRecorded',
  cause_deposit_approved: 'finance.detail.cause.depositApproved',
  cause_deposit_rejected: 'finance.detail.cause.depositRejected',
  cause_decline_limit: 'finance.detail.cause.declineLimit',
  cause_no_method_left: 'finance.detail.cause.noMethodLeft',
  cause_time_ran_out: 'finance.detail.cause.timeRanOut',
};

/** "Visa ending 0002" as the server words it; without the last digits, the brand alone ("Card" without a brand). */
function cardMeans(t: T, brand: string, last4: string): ReactNode {
  const named = brand ? asTyped(cardBrandLabel(brand)) : labelsWith(t).rail('card');
  return last4 ? t('finance.detail.cardEnding', { brand: named, last4 }) : named;
}

/**
 * A timeline line's detail in the reader's language, from `detail_code` and `detail_args`; null
 * when there is none to show (an event, a notification: its technical record is on the Webhooks
 * screen). A cause this screen does not know reads in the server's words.
 */
function timelineDetail(t: T, e: TimelineEntry): ReactNode {
  const a = e.detail_args;
  const str = (name: string) => (a[name] === null || a[name] === undefined ? '' : String(a[name]));
  const num = (name: string) => {
    const v = a[name];
    return typeof v === 'number' ? v : 0;
  };
  const amount = (name: string) => formatMoney(num(name), str('currency'));
  const who = (): ReactNode => (str('full_name') || str('username') ? asTyped(str('full_name') || str('username')) : t('finance.detail.someone'));
  const payment = () => t('finance.detail.payment', { rail: str('rail') });
  const breakdown = () =>
    t('finance.detail.breakdown', {
      charged: amount('charged_minor'),
      bearer: str('fee_bearer') || 'none',
      feeOf: t('finance.detail.feeOf', { rail: str('rail') || 'cash' }),
      fee: amount('fee_minor'),
      net: amount('net_minor'),
    });
  switch (e.detail_code) {
    case null:
      return null;
    case 'session_amount':
      return t('finance.detail.sessionAmount', { amount: amount('amount_minor'), invoice: asTyped(str('invoice_ref')) });
    case 'attempt_amounts': {
      const rail = str('rail');
      const network = str('operator') ? asTyped(networkLabel(str('operator'))) : labelsWith(t).rail('momo');
      const means =
        rail === 'momo'
          ? str('phone_last4')
            ? t('finance.detail.momoNumber', { network, last4: str('phone_last4') })
            : network
          : rail === 'card'
            ? cardMeans(t, str('card_brand'), str('card_last4'))
            : str('payment_reference')
              ? t('finance.detail.reference', { reference: asTyped(str('payment_reference')) })
              : null;
      return means === null ? breakdown() : <>{breakdown()} · {means}</>;
    }
    case 'slip_amounts':
      return (
        <>
          {breakdown()} · {t('finance.detail.slipNow', { status: labelsWith(t).slipStatus(str('slip_status')) })}
        </>
      );
    case 'decline_reason':
      return t('finance.detail.declineReason', { reason: str('reason'), words: asTyped(declineReasonLabel(str('reason'))) });
    case 'deposit_amount': {
      const recorded = t('finance.detail.depositAmount', { amount: amount('amount_minor'), who: who() });
      return str('note') ? <>{recorded} · {t('finance.detail.quoted', { note: asTyped(str('note')) })}</> : recorded;
    }
    case 'deposit_review': {
      const by = t('finance.detail.reviewedBy', { who: who() });
      return str('reason') ? <>{by} · {asTyped(str('reason'))}</> : by;
    }
    case 'cause_other':
      return asTyped(str('text'));
    default: {
      // A status change's cause: one message each, given everything a cause may name.
      const until = str('valid_until');
      return t(CAUSES[e.detail_code], {
        payment: payment(),
        status: str('status'),
        until: until ? <time dateTime={until}>{formatDateTime(until)}</time> : '',
        who: who(),
        reason: asTyped(str('reason') || '—'),
        count: num('count'),
      });
    }
  }
}
