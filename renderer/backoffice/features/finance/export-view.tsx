import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import type { PaymentsExportJob } from '../../../../shared/schemas/backoffice';
import { useApi } from '../common/api';
import { useErrorText } from '../common/error-text';
import { dateInputValue, dayEndIso, dayStartIso } from '../common/format';
import { useT } from '../../../ui/i18n';
import { Card, InputField } from '../../../ui/blocks';
import { paymentsExport } from './finance.queries';

/**
 * The reconciliation export: run on the server as a job this screen follows (payments written so
 * far), with a Cancel that stops it there; the file is downloaded once the job has completed.
 */
export function ExportView({ merchantId }: { merchantId: string | undefined }) {
  const errorText = useErrorText();
  const api = useApi();
  const t = useT();
  const queryClient = useQueryClient();
  const today = new Date();
  const monthStart = new Date(today.getFullYear(), today.getMonth(), 1);
  const [fromDay, setFromDay] = useState(dateInputValue(monthStart));
  const [toDay, setToDay] = useState(dateInputValue(today));
  const [state, setState] = useState<{ tone: 'error' | 'success' | 'info'; text: string } | null>(null);
  const [jobId, setJobId] = useState<string | null>(null);
  const [starting, setStarting] = useState(false);
  const [cancelling, setCancelling] = useState(false);
  const fetched = useRef<string | null>(null);
  const job = useQuery({
    queryKey: ['payments-export', api.userId, jobId] as const,
    queryFn: ({ signal }) => paymentsExport.get(api, jobId!, signal).then((a) => a.export),
    enabled: jobId !== null,
    // Followed twice a second while it runs.
    refetchInterval: (q) => (q.state.data?.state === 'running' || !q.state.data ? 500 : false),
  });
  const current: PaymentsExportJob | undefined = job.data;
  const running = starting || current?.state === 'running';

  useEffect(() => {
    if (!current || fetched.current === current.id) return;
    if (current.state === 'completed') {
      fetched.current = current.id;
      void (async () => {
        try {
          const blob = await paymentsExport.file(api, current.id);
          const url = URL.createObjectURL(blob);
          const a = document.createElement('a');
          a.href = url;
          a.download = current.file_name;
          document.body.appendChild(a);
          a.click();
          a.remove();
          setTimeout(() => URL.revokeObjectURL(url), 1000);
          setState({ tone: 'success', text: t('finance.export.done', { count: current.rows_written }) });
        } catch (err) {
          setState({ tone: 'error', text: errorText(err) });
        }
      })();
    } else if (current.state === 'cancelled') {
      fetched.current = current.id;
      setState({ tone: 'info', text: t('exportJob.cancelled', { count: current.rows_written }) });
    } else if (current.state === 'failed') {
      fetched.current = current.id;
      setState({ tone: 'error', text: current.error ?? t('exportJob.failed') });
    }
  }, [current, api, t]);

  const start = async () => {
    const from = dayStartIso(fromDay);
    const to = dayEndIso(toDay);
    if (!from || !to) return setState({ tone: 'error', text: t('finance.export.chooseDates') });
    setStarting(true);
    setState(null);
    try {
      const { export: started } = await paymentsExport.start(api, merchantId, from, to);
      queryClient.setQueryData(['payments-export', api.userId, started.id], started);
      setJobId(started.id);
    } catch (err) {
      setState({ tone: 'error', text: errorText(err, 'the dates') });
    } finally {
      setStarting(false);
    }
  };
  const cancel = async () => {
    if (!current) return;
    setCancelling(true);
    try {
      const { export: stopped } = await paymentsExport.cancel(api, current.id);
      queryClient.setQueryData(['payments-export', api.userId, stopped.id], stopped);
    } catch (err) {
      // Finished meanwhile: the next poll shows it completed.
      setState({ tone: 'error', text: errorText(err) });
      void job.refetch();
    } finally {
      setCancelling(false);
    }
  };

  return (
    <Card title={t('finance.export.title')} testId="payments-export">
      <p className="bo-muted">{t('finance.export.note')}</p>
      <div className="bo-inline-form">
        <InputField label={t('finance.from')} type="date" value={fromDay} onChange={setFromDay} />
        <InputField label={t('finance.export.toInclusive')} type="date" value={toDay} onChange={setToDay} />
        <button type="button" className="bo-btn bo-btn--primary bo-export-btn" disabled={running} onClick={() => void start()}>
          {running ? t('exportJob.exporting') : t('finance.export.download')}
        </button>
        {current?.state === 'running' && (
          <button type="button" className="bo-btn bo-btn--danger bo-export-btn" disabled={cancelling} onClick={() => void cancel()}>
            {cancelling ? t('exportJob.cancelling') : t('exportJob.cancel')}
          </button>
        )}
      </div>
      {current?.state === 'running' && (
        <p className="bo-export-progress" role="status" data-testid="export-progress">
          {t('exportJob.progress', { count: current.rows_written })}
        </p>
      )}
      {state && (
        <div className={`bo-alert bo-alert--${state.tone}`} role={state.tone === 'error' ? 'alert' : 'status'}>
          {state.text}
        </div>
      )}
    </Card>
  );
}
