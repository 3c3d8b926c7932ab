import { useState } from 'react';
import { useT } from '../../../ui/i18n';
import { useApi } from '../common/api';
import { useErrorText } from '../common/error-text';
import { dateInputValue, dayEndIso, dayStartIso } from '../common/format';
import { Card, InputField } from '../../../ui/blocks';
import { paymentsCsvPath } from './finance.queries';

export function ExportView({ merchantId }: { merchantId: string | undefined }) {
  const errorText = useErrorText();
  const t = useT();
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
    if (!from || !to) return setState({ tone: 'error', text: t('finance.export.chooseDates') });
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
      setState({ tone: 'success', text: t('finance.export.done', { count: rows }) });
    } catch (err) {
      setState({ tone: 'error', text: errorText(err, 'the dates') });
    } finally {
      setBusy(false);
    }
  };
  return (
    <Card title={t('finance.export.title')}>
      <p className="bo-muted">{t('finance.export.note')}</p>
      <div className="bo-inline-form">
        <InputField label={t('finance.from')} type="date" value={fromDay} onChange={setFromDay} />
        <InputField label={t('finance.export.toInclusive')} type="date" value={toDay} onChange={setToDay} />
        <button type="button" className="bo-btn bo-btn--primary bo-export-btn" disabled={busy} onClick={() => void download()}>
          {busy ? t('finance.preparing') : t('finance.export.download')}
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
