import { useState } from 'react';
import { useApi } from '../common/api';
import { useErrorText } from '../common/error-text';
import { dateInputValue, dayEndIso, dayStartIso } from '../common/format';
import { Card, InputField } from '../../../ui/blocks';
import { paymentsCsvPath } from './finance.queries';

export function ExportView({ merchantId }: { merchantId: string | undefined }) {
  const errorText = useErrorText();
  const api = useApi();
  const today = new Date();
  const monthStart = new Date(today.getFullYear(), today.getMonth(), 1);
  const [fromDay, setFromDay] = useState(dateInputValue(monthStart));
  const [toDay, setToDay] = useState(dateInputValue(today));
  const [state, setState] = useState<{ tone: 'error' | 'success'; text: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const download = async () => {
    const from = dayStartIso(fromDay);
    const to = dayEndIso(toDay);
    if (!from || !to) return setState({ tone: 'error', text: 'Choose both dates.' });
    setBusy(true);
    try {
      const blob = await api.download(paymentsCsvPath(merchantId, from, to));
      const rows = Math.max(0, (await blob.text()).trim().split('\n').length - 1);
      const url = URL.createObjectURL(blob);
      const a = document.createElement('a');
      a.href = url;
      a.download = `payments-${fromDay}-to-${toDay}.csv`;
      document.body.appendChild(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 1000);
      setState({ tone: 'success', text: `Downloaded ${rows} payment${rows === 1 ? '' : 's'}.` });
    } catch (err) {
      setState({ tone: 'error', text: errorText(err, 'the dates') });
    } finally {
      setBusy(false);
    }
  };
  return (
    <Card title="Payments for reconciliation (CSV)">
      <p className="bo-muted">
        One row per payment whose session succeeded in the chosen days (your local time): amount, fee and collected total in minor units and as a decimal, the rail, the payment reference, and for cash the deposit, its teller and its approver.
      </p>
      <div className="bo-inline-form">
        <InputField label="From" type="date" value={fromDay} onChange={setFromDay} />
        <InputField label="To (inclusive)" type="date" value={toDay} onChange={setToDay} />
        <button type="button" className="bo-btn bo-btn--primary bo-export-btn" disabled={busy} onClick={() => void download()}>
          {busy ? 'Preparing…' : 'Download CSV'}
        </button>
      </div>
      {state && (
        <div className={`bo-alert bo-alert--${state.tone}`} role={state.tone === 'error' ? 'alert' : 'status'}>
          {state.text}
        </div>
      )}
    </Card>
  );
}
