import type { CashDeposit } from '../../../../shared/schemas/backoffice';
import { DEPOSIT_STATUS_LABELS } from '../../../../shared/labels';
import { formatDateTime, formatMoney } from '../common/format';
import { Card, DetailList, Mono } from '../../../ui/blocks';

/** The deposit's state as printed: its one name (shared/labels.ts) and what it means for the payer. */
const STATUS_WORDS: Record<CashDeposit['status'], string> = {
  under_review: `${DEPOSIT_STATUS_LABELS.under_review}: the payment completes once a supervisor approves it`,
  approved: `${DEPOSIT_STATUS_LABELS.approved}: the payment is complete`,
  rejected: `${DEPOSIT_STATUS_LABELS.rejected} by the supervisor`,
};
const FOOT: Record<CashDeposit['status'], string> = {
  under_review: 'Keep this receipt. The merchant is notified when the deposit is approved.',
  approved: 'Keep this receipt. The payment is complete and the merchant has been notified.',
  rejected: 'This deposit was rejected: the payment is not complete.',
};

/** Prints the page's `.cd-printable` part only (see cash-desk.css): through the desktop shell, or the browser. */
export async function printPart(kind: 'receipt', id: string): Promise<void> {
  if (window.paydesk) await window.paydesk.printDocument({ kind, id });
  else window.print();
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
  const test = d.mode === 'test';
  const items: Array<[string, React.ReactNode]> = [
    ['Receipt no.', <Mono key="id">{d.receipt_no ?? d.id}</Mono>],
    ['Slip', <Mono key="s">{d.slip_reference}</Mono>],
    ['Invoice', d.invoice_ref],
    ['Payer', d.customer_name || '—'],
  ];
  if (d.description) items.push(['For', d.description]);
  if (d.branch_name) items.push(['Branch', d.branch_name]);
  items.push(['Received by', d.recorded_by.full_name || teller || d.recorded_by.username], ['Date', formatDateTime(d.created_at, { seconds: true })], ['Status', STATUS_WORDS[d.status]]);
  if (d.status === 'rejected' && d.review_reason) items.push(['Reason', d.review_reason]);
  return (
    <Card testId="deposit-receipt" className="cd-receipt-card">
      {!reprint && (
        <div className="bo-alert bo-alert--success cd-no-print" role="status">
          Deposit recorded. It now waits for a supervisor's approval; the payment completes then.
        </div>
      )}
      <div className="cd-receipt cd-printable" id="receipt">
        {test && (
          <div className="cd-test-mark" data-testid="receipt-test-mark">
            TEST · sandbox deposit · no real money
          </div>
        )}
        <div className="cd-receipt__title">
          Cash deposit receipt{reprint ? <span className="cd-receipt__copy"> (copy)</span> : null}
        </div>
        <div className="cd-receipt__merchant">{d.merchant_name}</div>
        <div className="cd-receipt__amount">{formatMoney(d.amount_minor, d.currency)}</div>
        <DetailList items={items} />
        <div className="cd-sign" data-testid="receipt-signature">
          <div>
            <span className="cd-sign__line" />
            Teller's signature
          </div>
          <div>
            <span className="cd-sign__line" />
            Branch stamp
          </div>
        </div>
        <p className="cd-receipt__foot">{FOOT[d.status]}</p>
      </div>
      <div className="cd-receipt__actions cd-no-print">
        <button type="button" ref={printRef} className="bo-btn bo-btn--primary" onClick={onPrint}>
          {reprint ? 'Print copy' : 'Print receipt'}
        </button>
        <button type="button" className="bo-btn bo-btn--secondary" onClick={onNext}>
          {nextLabel} <kbd className="bo-kbd">Esc</kbd>
        </button>
      </div>
    </Card>
  );
}
