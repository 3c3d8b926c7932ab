import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useRef, useState, type FormEvent } from 'react';
import type { CashDeposit, ScannedSlip } from '../../../../shared/schemas/backoffice';
import { ApiError } from '../../api/client';
import { meQueries } from '../auth/me.queries';
import { errorMessage, useApi } from '../common/api';
import { formatDateTime, formatMoney, formatRelative, parseAmount } from '../common/format';
import { Card, DataTable, DetailList, Empty, Loading, Money, Mono, PageTitle, QueryState, StatusBadge, type SortState } from '../common/ui';
import { depositQueries } from '../review/deposits.queries';
import { CameraScanner } from './camera-scanner';
import { cashSlipQueries, recordDeposit } from './cash-slips.queries';
import './cash-desk.css';

/** Why a scanned slip cannot take a deposit, in the teller's words. */
function blockedReason(slip: ScannedSlip): string | null {
  if (slip.can_record) return null;
  if (slip.status === 'under_review') return 'A deposit on this slip is already waiting for a supervisor.';
  if (slip.status === 'used') return 'This slip has been paid. Do not take cash for it again.';
  if (slip.status === 'voided') return 'This slip was voided. The payer needs a new slip from the checkout page.';
  if (slip.status === 'expired' || slip.session_status === 'expired') return 'This slip has expired. The payer needs a new checkout link from the merchant.';
  if (slip.session_status !== 'open') return `The payment is ${slip.session_status}; this slip cannot be paid now.`;
  return 'This slip cannot take a deposit.';
}

/**
 * The teller's cash desk. Keyboard path, three actions from scan to recorded:
 *   1. scan the slip (a keyboard-wedge scanner types the token and Enter into the focused field),
 *   2. type the counted amount and press Enter (recorded),
 *   3. print the receipt (focused; Enter) — Escape or "Next slip" returns to the scan field.
 */
export function CashDeskPage() {
  const api = useApi();
  const queryClient = useQueryClient();
  const me = useQuery(meQueries.me(api));
  const [scanText, setScanText] = useState('');
  const [token, setToken] = useState('');
  const [counted, setCounted] = useState('');
  const [note, setNote] = useState('');
  const [amountError, setAmountError] = useState<string | null>(null);
  const [receipt, setReceipt] = useState<{ deposit: CashDeposit; slip: ScannedSlip } | null>(null);
  const [camera, setCamera] = useState(false);
  const scanRef = useRef<HTMLInputElement>(null);
  const amountRef = useRef<HTMLInputElement>(null);
  const printRef = useRef<HTMLButtonElement>(null);

  const slip = useQuery(cashSlipQueries.scanned(api, token));
  const [recentSort, setRecentSort] = useState<SortState>({ key: 'created_at', dir: 'desc' });
  const [recentOffset, setRecentOffset] = useState(0);
  const recent = useQuery(depositQueries.list(api, undefined, 8, recentOffset, recentSort));

  const record = useMutation({
    mutationFn: (amount: number) => recordDeposit(api, token, { amount_minor: amount, ...(note.trim() ? { note: note.trim() } : {}) }),
    onSuccess: (result) => {
      setReceipt(result);
      queryClient.setQueryData(cashSlipQueries.scanned(api, token).queryKey, result.slip);
      void queryClient.invalidateQueries({ queryKey: depositQueries.all(api) });
    },
    onError: (err) => {
      if (err instanceof ApiError && err.code === 'PAYMENT_AMOUNT_MISMATCH') {
        setAmountError('The counted amount differs from the slip. Recount the cash; if it is still different, do not record it.');
      } else {
        setAmountError(errorMessage(err));
      }
      amountRef.current?.select();
    },
  });

  const reset = useCallback(() => {
    setScanText('');
    setToken('');
    setCounted('');
    setNote('');
    setAmountError(null);
    setReceipt(null);
    record.reset();
    requestAnimationFrame(() => scanRef.current?.focus());
  }, [record]);

  // Once a payable slip is on screen, the counted-amount field takes the keyboard.
  useEffect(() => {
    if (slip.data?.can_record && !receipt) amountRef.current?.focus();
  }, [slip.data, receipt]);
  useEffect(() => {
    if (receipt) printRef.current?.focus();
  }, [receipt]);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape' && (token || receipt) && !camera) reset();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [token, receipt, camera, reset]);

  const submitScan = (e: FormEvent) => {
    e.preventDefault();
    const value = scanText.trim();
    if (!value) return;
    setReceipt(null);
    setAmountError(null);
    setCounted('');
    record.reset();
    setToken(value);
    void queryClient.invalidateQueries({ queryKey: cashSlipQueries.scanned(api, value).queryKey });
  };

  const onCamera = useCallback(
    (value: string) => {
      setCamera(false);
      setScanText(value);
      setReceipt(null);
      setCounted('');
      setToken(value);
    },
    [],
  );

  const submitAmount = (e: FormEvent) => {
    e.preventDefault();
    if (!slip.data) return;
    const amount = parseAmount(counted, slip.data.currency);
    if (amount === null || amount <= 0) {
      setAmountError(`Type the counted amount in ${slip.data.currency}, e.g. ${formatMoney(slip.data.amount_minor, slip.data.currency)}.`);
      return;
    }
    setAmountError(null);
    record.mutate(amount);
  };

  const print = async () => {
    if (!receipt) return;
    if (window.paydesk) await window.paydesk.printDocument({ kind: 'receipt', id: receipt.deposit.id });
    else window.print();
  };

  return (
    <div className="bo-page cd">
      <PageTitle
        title="Cash desk"
        subtitle={me.data?.user.branch_name ? `Counter at ${me.data.user.branch_name}` : 'Scan a deposit slip to take a cash payment.'}
      />
      <div className="bo-grid-2">
        <div>
          <Card className="cd-scan" testId="scan-card">
            <form onSubmit={submitScan} className="cd-scan__form">
              <label htmlFor="slip-scan" className="bo-label">
                Slip token
              </label>
              <div className="cd-scan__row">
                <input
                  id="slip-scan"
                  ref={scanRef}
                  className="bo-input bo-input--xl"
                  value={scanText}
                  onChange={(e) => setScanText(e.target.value)}
                  placeholder="Scan, or type slp_…"
                  autoFocus
                  autoComplete="off"
                  spellCheck={false}
                  aria-describedby="slip-scan-hint"
                />
                <button type="submit" className="bo-btn bo-btn--primary bo-btn--lg">
                  Look up
                </button>
              </div>
              <p id="slip-scan-hint" className="bo-hint">
                A barcode scanner types the token and presses <kbd className="bo-kbd">Enter</kbd> for you.{' '}
                <button type="button" className="cd-link" onClick={() => setCamera((c) => !c)}>
                  {camera ? 'Close the camera' : 'Scan with the camera'}
                </button>
              </p>
            </form>
            {camera && <CameraScanner onDetected={onCamera} onClose={() => setCamera(false)} />}
          </Card>

          {token && !receipt && (
            <SlipPanel
              slip={slip}
              counted={counted}
              setCounted={(v) => {
                setCounted(v);
                setAmountError(null);
              }}
              note={note}
              setNote={setNote}
              amountError={amountError}
              onSubmit={submitAmount}
              pending={record.isPending}
              amountRef={amountRef}
              onNext={reset}
            />
          )}
          {receipt && <Receipt receipt={receipt} teller={me.data?.user.username ?? ''} printRef={printRef} onPrint={() => void print()} onNext={reset} />}
          {!token && !receipt && (
            <Card>
              <Empty title="Waiting for a slip">
                Scan the payer's deposit slip. The amount, merchant and invoice appear here; you then type the cash you counted and press Enter.
              </Empty>
            </Card>
          )}
        </div>
        <Card title="Your recent deposits" className="bo-card--flush">
          <QueryState query={recent} isEmpty={(d) => d.deposits.length === 0} empty={<Empty title="No deposits yet">Deposits you record appear here with their review status.</Empty>}>
            {(d) => (
              <DataTable
                caption="Your recent deposits"
                rows={d.deposits}
                rowKey={(r) => r.id}
                sort={recentSort}
                onSort={(s) => {
                  setRecentSort(s);
                  setRecentOffset(0);
                }}
                page={d.total > 8 ? { total: d.total, limit: 8, offset: recentOffset, onChange: setRecentOffset } : undefined}
                columns={[
                  { key: 'ref', header: 'Slip', sortKey: 'slip_reference', render: (r) => <Mono>{r.slip_reference}</Mono> },
                  { key: 'amount', header: 'Amount', sortKey: 'amount_minor', align: 'right', render: (r) => <Money minor={r.amount_minor} currency={r.currency} /> },
                  { key: 'status', header: 'Status', sortKey: 'status', render: (r) => <StatusBadge status={r.status} /> },
                ]}
              />
            )}
          </QueryState>
        </Card>
      </div>
    </div>
  );
}

function SlipPanel(props: {
  slip: { data: ScannedSlip | undefined; isPending: boolean; isError: boolean; error: unknown; refetch: () => unknown };
  counted: string;
  setCounted: (v: string) => void;
  note: string;
  setNote: (v: string) => void;
  amountError: string | null;
  onSubmit: (e: FormEvent) => void;
  pending: boolean;
  amountRef: React.RefObject<HTMLInputElement | null>;
  onNext: () => void;
}) {
  const { slip } = props;
  if (slip.isPending) return <Card><Loading label="Looking up the slip…" /></Card>;
  if (slip.isError || !slip.data) {
    const notFound = slip.error instanceof ApiError && slip.error.status === 404;
    return (
      <Card>
        <div className="bo-alert bo-alert--error" role="alert">
          {notFound ? 'No slip has this token. Check that the whole barcode was scanned, or type the token printed under it.' : errorMessage(slip.error)}
        </div>
        <button type="button" className="bo-btn bo-btn--secondary" onClick={props.onNext}>
          Scan another slip
        </button>
      </Card>
    );
  }
  const s = slip.data;
  const blocked = blockedReason(s);
  return (
    <Card testId="scanned-slip">
      <div className="cd-slip__head">
        <div>
          <div className="cd-slip__merchant" data-testid="slip-merchant">
            {s.merchant_name}
          </div>
          <div className="cd-slip__ref">
            Slip <Mono>{s.reference}</Mono>
          </div>
        </div>
        <StatusBadge status={s.status} />
      </div>
      <div className="cd-slip__amount" data-testid="slip-amount">
        {formatMoney(s.amount_minor, s.currency)}
      </div>
      <DetailList
        items={[
          ['Invoice', <Mono key="i">{s.invoice_ref}</Mono>],
          ['Payer', s.customer_name || '—'],
          ['Description', s.description || '—'],
          ['Payment', <StatusBadge key="p" status={s.session_status} />],
          ['Expires', `${formatDateTime(s.expires_at)} (${formatRelative(s.expires_at)})`],
        ]}
      />
      {blocked ? (
        <>
          <div className="bo-alert bo-alert--error" role="alert">
            {blocked}
          </div>
          <button type="button" className="bo-btn bo-btn--secondary" onClick={props.onNext}>
            Scan another slip
          </button>
        </>
      ) : (
        <form className="cd-record" onSubmit={props.onSubmit} noValidate>
          <label htmlFor="counted" className="bo-label">
            Counted cash ({s.currency})
          </label>
          <div className="cd-scan__row">
            <input
              id="counted"
              ref={props.amountRef}
              className="bo-input bo-input--xl"
              inputMode="decimal"
              autoComplete="off"
              value={props.counted}
              onChange={(e) => props.setCounted(e.target.value)}
              placeholder="0.00"
              aria-invalid={props.amountError ? true : undefined}
              aria-describedby="counted-hint"
            />
            <button type="submit" className="bo-btn bo-btn--primary bo-btn--lg" disabled={props.pending}>
              {props.pending ? 'Recording…' : 'Record deposit'}
            </button>
          </div>
          {props.amountError ? (
            <p id="counted-hint" className="bo-field-error" role="alert">
              {props.amountError}
            </p>
          ) : (
            <p id="counted-hint" className="bo-hint">
              Type what you counted and press <kbd className="bo-kbd">Enter</kbd>. It must equal the slip amount. <kbd className="bo-kbd">Esc</kbd> cancels.
            </p>
          )}
          <details className="cd-note">
            <summary>Add a note</summary>
            <input className="bo-input" value={props.note} onChange={(e) => props.setNote(e.target.value)} maxLength={500} aria-label="Note for the supervisor" />
          </details>
        </form>
      )}
    </Card>
  );
}

function Receipt({
  receipt,
  teller,
  printRef,
  onPrint,
  onNext,
}: {
  receipt: { deposit: CashDeposit; slip: ScannedSlip };
  teller: string;
  printRef: React.RefObject<HTMLButtonElement | null>;
  onPrint: () => void;
  onNext: () => void;
}) {
  const { deposit: d, slip } = receipt;
  return (
    <Card testId="deposit-receipt" className="cd-receipt-card">
      <div className="bo-alert bo-alert--success cd-no-print" role="status">
        Deposit recorded. It now waits for a supervisor's approval; the payment completes then.
      </div>
      <div className="cd-receipt" id="receipt">
        <div className="cd-receipt__title">Cash deposit receipt</div>
        <div className="cd-receipt__merchant">{d.merchant_name}</div>
        <div className="cd-receipt__amount">{formatMoney(d.amount_minor, d.currency)}</div>
        <DetailList
          items={[
            ['Receipt no.', <Mono key="id">{d.id}</Mono>],
            ['Slip', <Mono key="s">{d.slip_reference}</Mono>],
            ['Invoice', d.invoice_ref],
            ['Payer', d.customer_name || '—'],
            ['Description', slip.description || '—'],
            ['Branch', d.branch_name ?? '—'],
            ['Received by', teller || d.recorded_by.username],
            ['Date', formatDateTime(d.created_at, { seconds: true })],
            ['Status', 'Awaiting supervisor approval'],
          ]}
        />
        <p className="cd-receipt__foot">Keep this receipt. The merchant is notified when the deposit is approved.</p>
      </div>
      <div className="cd-receipt__actions cd-no-print">
        <button type="button" ref={printRef} className="bo-btn bo-btn--primary" onClick={onPrint}>
          Print receipt
        </button>
        <button type="button" className="bo-btn bo-btn--secondary" onClick={onNext}>
          Next slip <kbd className="bo-kbd">Esc</kbd>
        </button>
      </div>
    </Card>
  );
}
