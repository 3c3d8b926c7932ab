import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useRef, useState, type FormEvent } from 'react';
import type { CashDeposit } from '../../../../shared/schemas/backoffice';
import { ApiError } from '../../api/client';
import { meQueries } from '../auth/me.queries';
import { useApi } from '../common/api';
import { useErrorText } from '../common/error-text';
import { amountErrorText } from '../../../ui/amount-text';
import { parseAmount, useAmountLocale } from '../common/format';
import { useT } from '../../../ui/i18n';
import { Card, Empty, PageTitle } from '../../../ui/blocks';
import { depositQueries } from '../review/deposits.queries';
import { CameraScanner } from './camera-scanner';
import { cashSlipQueries, recordDeposit } from './cash-slips.queries';
import { DepositReceipt, printPart } from './deposit-receipt';
import { RecentDeposits, ShiftTotalCard } from './shift-tools';
import { SlipPanel } from './slip-panel';
import { ShortcutsButton, ShortcutsHelp, useShortcuts, type Shortcut } from '../common/shortcuts';
import './cash-desk.css';

type DeskKey = 'scan' | 'camera' | 'help';
/** The cash desk's single-key shortcuts (the rules of features/common/shortcuts.tsx), as its help dialog lists them. */
const DESK_SHORTCUTS: ReadonlyArray<Shortcut<DeskKey>> = [
  { keys: ['s', '/'], action: 'scan', what: 'deskKeys.scan' },
  { keys: ['c'], action: 'camera', what: 'deskKeys.camera' },
  { keys: ['?'], action: 'help', what: 'shortcuts.help' },
];

/**
 * The teller's cash desk. Keyboard path, three actions from scan to recorded:
 *   1. scan the slip (a keyboard-wedge scanner types the token and Enter into the focused field),
 *   2. type the counted amount and press Enter (recorded),
 *   3. print the receipt (focused; Enter) — Escape or "Next slip" returns to the scan field.
 * Out of a field, `s` or `/` goes back to the scan field, `c` opens or closes the camera, `?` lists them.
 */
export function CashDeskPage() {
  const errorText = useErrorText();
  const t = useT();
  const api = useApi();
  const queryClient = useQueryClient();
  const me = useQuery(meQueries.me(api));
  const [scanText, setScanText] = useState('');
  const [token, setToken] = useState('');
  const [counted, setCounted] = useState('');
  const [note, setNote] = useState('');
  const [amountError, setAmountError] = useState<string | null>(null);
  // The receipt on screen: the deposit just recorded, or one picked from the list to reprint.
  const [receipt, setReceipt] = useState<{ deposit: CashDeposit; reprint: boolean } | null>(null);
  const [printShift, setPrintShift] = useState(false);
  const [camera, setCamera] = useState(false);
  const scanRef = useRef<HTMLInputElement>(null);
  const amountRef = useRef<HTMLInputElement>(null);
  const printRef = useRef<HTMLButtonElement>(null);
  // A teller an administrator has not placed at a branch records nothing: say why instead of offering the form.
  const noBranch = me.data !== undefined && me.data.user.branch_id === null;

  const slip = useQuery(cashSlipQueries.scanned(api, token));

  const record = useMutation({
    mutationFn: (amount: number) => recordDeposit(api, token, { amount_minor: amount, ...(note.trim() ? { note: note.trim() } : {}) }),
    onSuccess: (result) => {
      setReceipt({ deposit: result.deposit, reprint: false });
      queryClient.setQueryData(cashSlipQueries.scanned(api, token).queryKey, result.slip);
      void queryClient.invalidateQueries({ queryKey: depositQueries.all(api) });
    },
    onError: (err) => {
      if (err instanceof ApiError && err.code === 'PAYMENT_AMOUNT_MISMATCH') {
        setAmountError(t('cashDesk.amountMismatch'));
      } else {
        setAmountError(errorText(err, 'amount_minor'));
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
      // Not while a dialog is open (the shortcuts help): its Escape closes it, nothing else.
      if (e.key === 'Escape' && (token || receipt) && !camera && !document.querySelector('dialog[open]')) reset();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [token, receipt, camera, reset]);

  const [help, setHelp] = useState(false);
  useShortcuts(DESK_SHORTCUTS, (key) => {
    if (key === 'help') return setHelp(true);
    if (noBranch) return;
    if (key === 'camera') return setCamera((c) => !c);
    scanRef.current?.focus();
    scanRef.current?.select();
  });

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

  const locale = useAmountLocale();
  const submitAmount = (e: FormEvent) => {
    e.preventDefault();
    if (!slip.data) return;
    const amount = parseAmount(counted, slip.data.currency, locale);
    if (!amount.ok || amount.minor <= 0) {
      setAmountError(amount.ok ? t('cashDesk.typeAmount', { currency: slip.data.currency }) : amountErrorText(t, amount));
      return;
    }
    setAmountError(null);
    record.mutate(amount.minor);
  };

  const print = async () => {
    if (receipt) await printPart('receipt', receipt.deposit.id);
  };
  // The cash-up prints on its own: the receipt steps aside while it does (see .cd-printable).
  useEffect(() => {
    if (!printShift) return;
    const day = new Date().toISOString().slice(0, 10);
    void printPart('receipt', `cash-up-${day}`).finally(() => setPrintShift(false));
  }, [printShift]);
  const reprint = (d: CashDeposit) => {
    setToken('');
    setScanText('');
    setReceipt({ deposit: d, reprint: true });
  };

  return (
    <div className="bo-page cd">
      <PageTitle
        title={t('cashDesk.title')}
        subtitle={me.data?.user.branch_name ? t('cashDesk.counterAt', { branch: me.data.user.branch_name }) : t('cashDesk.subtitle')}
        actions={<ShortcutsButton onClick={() => setHelp(true)} />}
      />
      <ShortcutsHelp open={help} onClose={() => setHelp(false)} shortcuts={DESK_SHORTCUTS} when="deskKeys.when" caption="deskKeys.caption" />
      <div className="bo-grid-2">
        {noBranch ? (
          <div>
            <Card testId="no-branch">
              <div className="bo-alert bo-alert--error" role="alert">
                <strong>{t('cashDesk.noBranch.title')}</strong>
                <p>{t('cashDesk.noBranch.body')}</p>
              </div>
              <p className="bo-hint">{t('cashDesk.noBranch.why')}</p>
            </Card>
          </div>
        ) : (
        <div>
          <Card className="cd-scan" testId="scan-card">
            <form onSubmit={submitScan} className="cd-scan__form">
              <label htmlFor="slip-scan" className="bo-label">
                {t('cashDesk.scanLabel')}
              </label>
              <div className="cd-scan__row">
                <input
                  id="slip-scan"
                  ref={scanRef}
                  className="bo-input bo-input--xl"
                  value={scanText}
                  onChange={(e) => setScanText(e.target.value)}
                  placeholder={t('cashDesk.scanPlaceholder')}
                  autoFocus
                  autoComplete="off"
                  spellCheck={false}
                  aria-describedby="slip-scan-hint"
                />
                <button type="submit" className="bo-btn bo-btn--primary bo-btn--lg">
                  {t('cashDesk.lookUp')}
                </button>
              </div>
              <p id="slip-scan-hint" className="bo-hint">
                {t('cashDesk.scanHint', { kbd: (chunks) => <kbd className="bo-kbd">{chunks}</kbd> })}{' '}
                <button type="button" className="cd-link" onClick={() => setCamera((c) => !c)}>
                  {camera ? t('cashDesk.closeCamera') : t('cashDesk.openCamera')}
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
          {receipt && (
            <div className={printShift ? 'cd-print-aside' : undefined}>
              <DepositReceipt
                deposit={receipt.deposit}
                teller={receipt.reprint ? receipt.deposit.recorded_by.username : (me.data?.user.username ?? '')}
                reprint={receipt.reprint}
                printRef={printRef}
                onPrint={() => void print()}
                onNext={reset}
                nextLabel={receipt.reprint ? t('cashDesk.close') : t('cashDesk.nextSlip')}
              />
            </div>
          )}
          {!token && !receipt && (
            <Card>
              <Empty title={t('cashDesk.waitingTitle')}>{t('cashDesk.waitingHint')}</Empty>
            </Card>
          )}
        </div>
        )}
        <div className="cd-side">
          <RecentDeposits onReprint={reprint} />
          <ShiftTotalCard printing={printShift} onPrint={() => setPrintShift(true)} />
        </div>
      </div>
    </div>
  );
}
