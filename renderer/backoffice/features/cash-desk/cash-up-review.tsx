import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useRef, useState } from 'react';
import type { CashUpStatus } from '../../../../shared/schemas/cash-up';
import { useT } from '../../../ui/i18n';
import { useApi } from '../common/api';
import { useErrorText } from '../common/error-text';
import { formatDateTime, formatMoney } from '../common/format';
import { Card, DataTable, Empty, PageTitle, QueryState, Tabs } from '../../../ui/blocks';
import { cashUpQueries, supervisorSignOff } from './cash-up.queries';
import { CashUpSheet, outcomeWords, printCashUp, signedMoney, staffName } from './cash-up-sheet';

/** The supervisor's cash-ups: the counts tellers signed, waiting or signed off, and the sheet of the one opened with its sign-off. */
export function SupervisorCashUps() {
  const t = useT();
  const api = useApi();
  const [status, setStatus] = useState<CashUpStatus>('teller_signed');
  const [selected, setSelected] = useState<string | null>(null);
  const list = useQuery(cashUpQueries.list(api, status));
  const detailRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (selected) detailRef.current?.scrollIntoView({ block: 'start' });
  }, [selected]);
  return (
    <div className="bo-page cu">
      <PageTitle title={t('cashUp.review.title')} subtitle={t('cashUp.review.subtitle')} />
      <div className="cd-no-print">
        <Tabs
          tabs={[
            { key: 'teller_signed', label: t('cashUp.review.waiting') },
            { key: 'supervisor_signed', label: t('cashUp.review.done') },
          ]}
          current={status === 'supervisor_signed' ? 'supervisor_signed' : 'teller_signed'}
          onChange={(k) => {
            setStatus(k);
            setSelected(null);
          }}
          label={t('cashUp.review.tabs')}
        >
        <Card className="bo-card--flush" testId="cash-up-queue">
          <QueryState
            query={list}
            isEmpty={(d) => d.cash_ups.length === 0}
            empty={<Empty title={status === 'teller_signed' ? t('cashUp.review.emptyWaiting') : t('cashUp.review.emptyDone')} />}
          >
            {(d) => (
              <DataTable
                caption={status === 'teller_signed' ? t('cashUp.review.waiting') : t('cashUp.review.done')}
                rows={d.cash_ups}
                rowKey={(r) => r.id ?? `${r.teller.id}-${r.date}-${r.currency}`}
                columns={[
                  { key: 'teller', header: t('cashUp.review.teller'), render: (r) => <span translate="no">{staffName(r.teller)}</span> },
                  { key: 'day', header: t('cashUp.review.day'), nowrap: true, render: (r) => <time dateTime={r.date}>{r.date}</time> },
                  { key: 'expected', header: t('cashUp.figures.expected'), align: 'right', nowrap: true, render: (r) => <span translate="no">{formatMoney(r.expected_minor, r.currency)}</span> },
                  {
                    key: 'difference',
                    header: t('cashUp.figures.difference'),
                    align: 'right',
                    nowrap: true,
                    render: (r) => (
                      <span translate="no" className={`cu-diff--${r.outcome ?? 'none'}`}>
                        {r.difference_minor === null ? '—' : signedMoney(r.difference_minor, r.currency)}
                      </span>
                    ),
                  },
                  {
                    key: 'open',
                    header: t('cashUp.review.action'),
                    align: 'right',
                    render: (r) => (
                      <button type="button" className="cd-link" onClick={() => setSelected(r.id)} aria-label={t('cashUp.review.openLabel', { name: staffName(r.teller), day: r.date, currency: r.currency })}>
                        {t('cashUp.review.open')}
                      </button>
                    ),
                  },
                ]}
              />
            )}
          </QueryState>
        </Card>
        </Tabs>
      </div>
      <div ref={detailRef}>{selected && <SupervisorDetail key={selected} id={selected} onDone={() => setSelected(null)} />}</div>
    </div>
  );
}

function SupervisorDetail({ id, onDone }: { id: string; onDone: () => void }) {
  const t = useT();
  const errorText = useErrorText();
  const api = useApi();
  const queryClient = useQueryClient();
  const one = useQuery(cashUpQueries.one(api, id));
  const [note, setNote] = useState('');
  const signOff = useMutation({
    mutationFn: () => supervisorSignOff(api, id, note.trim()),
    onSuccess: (r) => {
      queryClient.setQueryData(cashUpQueries.one(api, id).queryKey, r.cash_up);
      void queryClient.invalidateQueries({ queryKey: cashUpQueries.all(api) });
    },
  });
  const noteId = useId();
  return (
    <QueryState query={one}>
      {(c) => (
        <div className="bo-grid-2 cu-grid">
          <Card
            title={t('cashUp.sheet.card')}
            testId="cash-up-card"
            actions={
              <>
                <button type="button" className="bo-btn bo-btn--secondary bo-btn--sm" onClick={() => printCashUp(id)}>
                  {t('cashUp.print')}
                </button>
                <button type="button" className="bo-btn bo-btn--secondary bo-btn--sm cd-no-print" onClick={onDone}>
                  {t('cashUp.review.close')}
                </button>
              </>
            }
          >
            <CashUpSheet c={c} printable />
          </Card>
          <div className="cd-no-print">
            {c.status === 'teller_signed' ? (
              <Card title={t('cashUp.review.signTitle')} testId="cash-up-sign-off">
                <form
                  onSubmit={(e) => {
                    e.preventDefault();
                    signOff.mutate();
                  }}
                >
                  <p>{t('cashUp.review.signBody', { outcome: outcomeWords(t, c) })}</p>
                  <label htmlFor={noteId} className="bo-label">
                    {t('cashUp.review.note')}
                  </label>
                  <textarea id={noteId} className="bo-input cu-note-input" rows={3} maxLength={500} value={note} onChange={(e) => setNote(e.target.value)} />
                  {signOff.isError && (
                    <p className="bo-field-error" role="alert" data-testid="sign-off-error">
                      {errorText(signOff.error, 'note')}
                    </p>
                  )}
                  <div className="cu-actions">
                    <button type="submit" className="bo-btn bo-btn--primary" disabled={signOff.isPending}>
                      {t('cashUp.review.signButton')}
                    </button>
                  </div>
                </form>
              </Card>
            ) : c.status === 'supervisor_signed' ? (
              <Card title={t('cashUp.review.signedTitle')}>
                <p role="status">{t('cashUp.review.signedBody', { at: formatDateTime(c.supervisor_signed_at) })}</p>
              </Card>
            ) : null}
          </div>
        </div>
      )}
    </QueryState>
  );
}
