import type { CashDeposit } from '../../../../shared/schemas/backoffice';
import { useT, type T } from '../../../ui/i18n';
import { formatDateTime, formatMoney } from '../common/format';
import { Card, DetailList, Mono } from '../../../ui/blocks';

/** The deposit's state as printed, in the teller's language: its name and what it means for the payer. */
const statusWords = (t: T): Record<CashDeposit['status'], string> => ({
  under_review: t('cashDesk.receipt.status.under_review'),
  approved: t('cashDesk.receipt.status.approved'),
  rejected: t('cashDesk.receipt.status.rejected'),
});
const foot = (t: T): Record<CashDeposit['status'], string> => ({
  under_review: t('cashDesk.receipt.foot.under_review'),
  approved: t('cashDesk.receipt.foot.approved'),
  rejected: t('cashDesk.receipt.foot.rejected'),
});

/** Prints the page's `.cd-printable` part only (see cash-desk.css): through the desktop shell, or the browser. */
export async function printPart(kind: 'receipt', id: string): Promise<void> {
  if (window.paydesk) await window.paydesk.printDocument({ kind, id });
  else window.print();
}

/** Lines to sign (or stamp) on paper, each above its label; `printOnly`: on paper, not on screen. */
export function SignatureLines({ labels, printOnly = false, testId }: { labels: string[]; printOnly?: boolean; testId?: string }) {
  return (
    <div className={`cd-sign${printOnly ? ' cd-sign--print-only' : ''}`} data-testid={testId}>
      {labels.map((label) => (
        <div key={label}>
          <span className="cd-sign__line" />
          {label}
        </div>
      ))}
    </div>
  );
}

/**
 * The teller's cash deposit receipt, on screen and on paper: printed right after recording,
 * and again from the recent-deposits list (a reprint says so). Test sessions carry a TEST
 * marker, a branch is printed only when the deposit has one, and the payer and the teller
 * sign (or the branch stamps) the foot.
 */
export function DepositReceipt({
  deposit: d,
  teller,
  reprint,
  printRef,
  onPrint,
  onNext,
  nextLabel,
}: {
  deposit: CashDeposit;
  teller: string;
  reprint: boolean;
  printRef: React.RefObject<HTMLButtonElement | null>;
  onPrint: () => void;
  onNext: () => void;
  nextLabel: string;
}) {
  const t = useT();
  const test = d.mode === 'test';
  const data = (key: string, value: React.ReactNode) => (
    <span key={key} translate="no">
      {value}
    </span>
  );
  const items: Array<[string, React.ReactNode]> = [
    [t('cashDesk.receipt.number'), <Mono key="id">{d.receipt_no ?? d.id}</Mono>],
    [t('cashDesk.receipt.slip'), <Mono key="s">{d.slip_reference}</Mono>],
    [t('cashDesk.invoice'), data('i', d.invoice_ref)],
    [t('cashDesk.payer'), data('p', d.customer_name || '—')],
  ];
  if (d.description) items.push([t('cashDesk.receipt.for'), data('f', d.description)]);
  if (d.branch_name) items.push([t('cashDesk.receipt.branch'), data('b', d.branch_name)]);
  items.push(
    [t('cashDesk.receipt.receivedBy'), data('r', d.recorded_by.full_name || teller || d.recorded_by.username)],
    [
      t('cashDesk.receipt.date'),
      <time key="d" dateTime={d.created_at}>
        {formatDateTime(d.created_at, { seconds: true })}
      </time>,
    ],
    [t('cashDesk.receipt.status'), statusWords(t)[d.status]],
  );
  if (d.status === 'rejected' && d.review_reason) items.push([t('cashDesk.receipt.reason'), data('x', d.review_reason)]);
  return (
    <Card testId="deposit-receipt" className="cd-receipt-card">
      {!reprint && (
        <div className="bo-alert bo-alert--success cd-no-print" role="status">
          {t('cashDesk.receipt.recorded')}
        </div>
      )}
      <div className="cd-receipt cd-printable" id="receipt">
        {test && (
          <div className="cd-test-mark" data-testid="receipt-test-mark">
            {t('cashDesk.receipt.testMark')}
          </div>
        )}
        <div className="cd-receipt__title">
          {t('cashDesk.receipt.title')}
          {reprint ? <span className="cd-receipt__copy"> {t('cashDesk.receipt.copy')}</span> : null}
        </div>
        <div className="cd-receipt__merchant" translate="no">
          {d.merchant_name}
        </div>
        <div className="cd-receipt__amount">{formatMoney(d.amount_minor, d.currency)}</div>
        <DetailList items={items} />
        <SignatureLines labels={[t('cashDesk.receipt.tellerSignature'), t('cashDesk.receipt.branchStamp')]} testId="receipt-signature" />
        <p className="cd-receipt__foot">{foot(t)[d.status]}</p>
      </div>
      <div className="cd-receipt__actions cd-no-print">
        <button type="button" ref={printRef} className="bo-btn bo-btn--primary" onClick={onPrint}>
          {reprint ? t('cashDesk.receipt.printCopy') : t('cashDesk.receipt.print')}
        </button>
        <button type="button" className="bo-btn bo-btn--secondary" onClick={onNext}>
          {nextLabel}{' '}
          <kbd className="bo-kbd" translate="no">
            Esc
          </kbd>
        </button>
      </div>
    </Card>
  );
}
