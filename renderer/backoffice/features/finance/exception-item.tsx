import type { ExceptionItem, ExceptionKind, ExceptionStatus, FinanceException } from '../../../../shared/schemas/finance-exceptions';
import { useT, type T } from '../../../ui/i18n';
import { Link } from '../../router';
import { ROUTES } from '../../routes';
import { labelsWith } from '../common/labels';
import { formatDateTime, formatMoney } from '../common/format';
import { Card, Mono, StatusBadge } from '../../../ui/blocks';

const FINANCE = ROUTES.finance.path;

/** Each kind in words. */
export const kindLabel = (t: T, k: ExceptionKind): string =>
  ({
    overpaid: t('exceptions.kind.overpaid'),
    paid_twice: t('exceptions.kind.paid_twice'),
    concurrent_sessions_paid: t('exceptions.kind.concurrent_sessions_paid'),
    amount_differs: t('exceptions.kind.amount_differs'),
  })[k];
/** An item's state in words. */
export const statusLabel = (t: T, s: ExceptionStatus): string =>
  ({ open: t('exceptions.status.open'), resolved: t('exceptions.status.resolved'), ignored: t('exceptions.status.ignored') })[s];

/**
 * One exception in a sentence, from its figures (the API's `summary` is the same sentence in
 * English, for CSV files and API clients).
 */
function exceptionSummary(t: T, e: FinanceException, payments: number): string {
  const m = (n: number) => formatMoney(n, e.currency);
  const amount = m(e.amount_minor);
  const billed = m(e.billed_minor);
  const before = m(e.collected_before_minor);
  switch (e.kind) {
    case 'concurrent_sessions_paid':
      return e.billed_minor > 0 ? t('exceptions.summary.concurrentBilled', { amount, billed, before }) : t('exceptions.summary.concurrentUnbilled', { amount });
    case 'paid_twice':
      return e.billed_minor > 0 ? t('exceptions.summary.twiceBilled', { amount, billed, before }) : t('exceptions.summary.twiceUnbilled', { amount });
    case 'amount_differs': {
      const due = e.billed_minor - e.collected_before_minor;
      return t('exceptions.summary.differs', { amount, due: m(due), billed, left: m(due - e.amount_minor) });
    }
    case 'overpaid':
      return t('exceptions.summary.overpaid', { billed, collected: m(e.collected_minor), over: m(e.collected_minor - e.billed_minor), payments });
  }
}
const KIND_TONE: Record<ExceptionKind, string> = { overpaid: 'failed', paid_twice: 'failed', concurrent_sessions_paid: 'failed', amount_differs: 'pending' };

/** One exception item: its invoice, states and kinds, the sentence of each kind, the amounts, the sessions involved, the last review and the actions. */
export function ItemCard({ item, onAct }: { item: ExceptionItem; onAct: (status: ExceptionStatus) => void }) {
  const t = useT();
  const m = (n: number) => formatMoney(n, item.currency);
  const diff = item.difference_minor;
  const sessions = new Map<string, FinanceException['sessions'][number]>();
  for (const e of item.exceptions) for (const s of e.sessions) if (!sessions.has(s.id) || s.trigger) sessions.set(s.id, s);
  return (
    <Card className="bo-exc-item" testId={`exception-${item.invoice_ref}`}>
      <div className="bo-exc-item__head">
        <h2 className="bo-exc-item__title">
          {t('exceptions.invoice', {
            invoice: (
              <Link to={`${FINANCE}/invoices/${encodeURIComponent(item.invoice_ref)}`}>
                <Mono>{item.invoice_ref}</Mono>
              </Link>
            ),
          })}
        </h2>
        <StatusBadge status={item.status === 'open' ? 'pending' : item.status === 'resolved' ? 'success' : 'inactive'} label={statusLabel(t, item.status)} />
        {item.kinds.map((k) => (
          <StatusBadge key={k} status={KIND_TONE[k]} label={kindLabel(t, k)} />
        ))}
        <span className="bo-muted bo-exc-item__when">{t('exceptions.detected', { date: <time dateTime={item.detected_at}>{formatDateTime(item.detected_at)}</time> })}</span>
      </div>
      {item.kinds.map((k) => {
        // One sentence per kind: the newest exception of each (as the API's `summaries`).
        const e = item.exceptions.filter((x) => x.kind === k).sort((a, b) => (a.detected_at < b.detected_at ? 1 : -1))[0];
        return e ? (
          <p key={k} className="bo-exc-item__summary">
            {exceptionSummary(t, e, item.payments)}
          </p>
        ) : null;
      })}
      <div className="bo-exc-item__body">
        <dl className="bo-exc-amounts">
          <dt>{t('exceptions.billed')}</dt>
          <dd>{item.billed_minor > 0 ? m(item.billed_minor) : t('exceptions.nothingBilled')}</dd>
          <dt>{t('exceptions.collected')}</dt>
          <dd>
            {t('exceptions.collectedIn', { amount: m(item.collected_minor), payments: item.payments })}
          </dd>
          {item.billed_minor > 0 && (
            <>
              <dt>{diff > 0 ? t('exceptions.overpaid') : diff < 0 ? t('exceptions.outstanding') : t('exceptions.balance')}</dt>
              <dd className={diff > 0 ? 'bo-exc-over' : undefined}>{m(Math.abs(diff))}</dd>
            </>
          )}
        </dl>
        <div>
          <p className="bo-exc-item__label">{t('exceptions.sessions')}</p>
          <ul className="bo-exc-sessions">
            {[...sessions.values()].map((s) => (
              <li key={s.id}>
                <Link to={`${FINANCE}/sessions/${encodeURIComponent(s.id)}`}>
                  {formatMoney(s.amount_minor, item.currency)} · {labelsWith(t).rail(s.paid_rail)}
                </Link>{' '}
                <span className="bo-muted">{t('exceptions.paidAt', { date: <time dateTime={s.finalized_at ?? undefined}>{formatDateTime(s.finalized_at)}</time> })}</span>
              </li>
            ))}
          </ul>
        </div>
      </div>
      <div className="bo-exc-item__review">
        {item.reviewed_at ? (
          <p className="bo-exc-item__note">
            {item.reopened ? `${t('exceptions.reopened')} ` : ''}
            {t('exceptions.lastNote', {
              who: <span translate="no">{item.reviewed_by}</span>,
              date: <time dateTime={item.reviewed_at}>{formatDateTime(item.reviewed_at)}</time>,
              note: <span translate="no">{item.note}</span>,
            })}
          </p>
        ) : (
          <p className="bo-muted bo-exc-item__note">{t('exceptions.nobody')}</p>
        )}
        <div className="bo-exc-item__actions">
          {item.status === 'open' ? (
            <>
              <button type="button" className="bo-btn bo-btn--primary bo-btn--sm" onClick={() => onAct('resolved')}>
                {t('exceptions.resolve')}
              </button>
              <button type="button" className="bo-btn bo-btn--secondary bo-btn--sm" onClick={() => onAct('ignored')}>
                {t('exceptions.ignore')}
              </button>
            </>
          ) : (
            <button type="button" className="bo-btn bo-btn--secondary bo-btn--sm" onClick={() => onAct('open')}>
              {t('exceptions.reopen')}
            </button>
          )}
        </div>
      </div>
    </Card>
  );
}
