import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { EXCEPTION_KIND_LABELS, EXCEPTION_KINDS, type ExceptionKind, type FinanceException } from '../../../../shared/schemas/finance-exceptions';
import { Link } from '../../router';
import { ROUTES } from '../../routes';
import { useSession } from '../auth/session';
import { errorMessage, useApi } from '../common/api';
import { formatDateTime, formatMoney, railLabel } from '../common/format';
import { Card, DataTable, Empty, Mono, PageTitle, Pagination, QueryState, SelectField, ShortId, StatusBadge, Tabs } from '../common/ui';
import { financeQueries } from './finance.queries';
import { exceptionQueries, exceptionsCsvPath } from './exceptions.queries';
import './exceptions.css';

const FINANCE = ROUTES.finance.path;
type KindTab = ExceptionKind | 'all';

/** What a clerk does about each kind: shown under the list and as the row's hint. */
const KIND_HELP: Record<ExceptionKind, string> = {
  overpaid: 'The invoice collected more than it billed. Refund the excess or keep it as credit.',
  paid_twice: 'A new session was paid after the invoice was already fully paid. Usually a duplicate: refund it.',
  concurrent_sessions_paid: 'Two sessions were open for the invoice at the same time and both were paid. Refund one.',
  amount_differs: 'A payment smaller than what was still due: the amount differs from the billed total and a balance is outstanding. Follow up with the payer.',
};
const KIND_TONE: Record<ExceptionKind, string> = { overpaid: 'failed', paid_twice: 'failed', concurrent_sessions_paid: 'failed', amount_differs: 'pending' };

/**
 * Finance exceptions: payments that do not reconcile with their invoice (over-paid, paid twice,
 * two open sessions both paid, part-payments), with the amounts, every session involved (each a
 * link to its detail and timeline) and a CSV export of the same rows.
 */
export function ExceptionsPage() {
  const api = useApi();
  const { session } = useSession();
  const isAdmin = session?.user.role === 'admin';
  const merchants = useQuery(financeQueries.merchants(api));
  const [picked, setPicked] = useState('');
  useEffect(() => {
    if (isAdmin && !picked && merchants.data?.merchants[0]) setPicked(merchants.data.merchants[0].id);
  }, [isAdmin, picked, merchants.data]);
  const merchantId = isAdmin ? picked || undefined : undefined;
  const merchantName = isAdmin ? merchants.data?.merchants.find((m) => m.id === picked)?.name : merchants.data?.merchants[0]?.name;

  const [tab, setTab] = useState<KindTab>('all');
  const [offset, setOffset] = useState(0);
  const limit = 25;
  const kind = tab === 'all' ? '' : tab;
  const list = useQuery({ ...exceptionQueries.list(api, merchantId, { kind, limit, offset }), enabled: !isAdmin || !!merchantId });
  const counts = list.data?.counts;
  const total = counts ? EXCEPTION_KINDS.reduce((n, k) => n + counts[k], 0) : undefined;
  const label = (k: KindTab) => {
    const n = k === 'all' ? total : counts?.[k];
    return `${k === 'all' ? 'All' : EXCEPTION_KIND_LABELS[k]}${n === undefined ? '' : ` (${n})`}`;
  };

  const [exportState, setExportState] = useState<{ tone: 'error' | 'success'; text: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const download = async () => {
    setBusy(true);
    try {
      const blob = await api.download(exceptionsCsvPath(merchantId, kind));
      const rows = Math.max(0, (await blob.text()).trim().split('\n').length - 1);
      const url = URL.createObjectURL(blob);
      const a = document.createElement('a');
      a.href = url;
      a.download = `exceptions${kind ? `-${kind}` : ''}.csv`;
      document.body.appendChild(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 1000);
      setExportState({ tone: 'success', text: `Downloaded ${rows} exception${rows === 1 ? '' : 's'}.` });
    } catch (err) {
      setExportState({ tone: 'error', text: errorMessage(err) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="bo-page">
      <PageTitle
        title="Exceptions"
        subtitle={`Payments that do not reconcile with their invoice${merchantName ? ` · ${merchantName}` : ''}`}
        actions={
          <>
            {isAdmin && merchants.data && (
              <SelectField label="Merchant" value={picked} onChange={(v) => (setPicked(v), setOffset(0))} options={merchants.data.merchants.map((m) => ({ value: m.id, label: m.name }))} />
            )}
            <button type="button" className="bo-btn bo-btn--secondary bo-export-btn" disabled={busy || (isAdmin && !merchantId)} onClick={() => void download()}>
              {busy ? 'Preparing…' : 'Export CSV'}
            </button>
          </>
        }
      />
      {exportState && (
        <div className={`bo-alert bo-alert--${exportState.tone}`} role={exportState.tone === 'error' ? 'alert' : 'status'}>
          {exportState.text}
        </div>
      )}
      <Tabs tabs={(['all', ...EXCEPTION_KINDS] as KindTab[]).map((k) => ({ key: k, label: label(k) }))} current={tab} onChange={(k) => (setTab(k), setOffset(0))} />
      {isAdmin && !merchantId ? (
        merchants.isPending ? null : <Card><Empty title="No merchant yet">Create a merchant integration first (Administration).</Empty></Card>
      ) : (
        <Card className="bo-card--flush" testId="exceptions-list">
          <QueryState
            query={list}
            isEmpty={(d) => d.total === 0}
            empty={
              <Empty title={kind ? `No ${EXCEPTION_KIND_LABELS[kind].toLowerCase()}` : 'No exceptions'}>
                Every payment so far matches what its invoice had outstanding.
              </Empty>
            }
          >
            {(d) => (
              <>
                <DataTable
                  caption="Finance exceptions"
                  rows={d.exceptions}
                  rowKey={(e) => e.id}
                  columns={[
                    { key: 'when', header: 'Detected', nowrap: true, render: (e) => formatDateTime(e.detected_at) },
                    { key: 'what', header: 'What happened', render: (e) => <WhatHappened e={e} /> },
                    {
                      key: 'invoice',
                      header: 'Invoice',
                      render: (e) => (
                        <Link to={`${FINANCE}/invoices/${encodeURIComponent(e.invoice_ref)}`}>
                          <Mono>{e.invoice_ref}</Mono>
                        </Link>
                      ),
                    },
                    { key: 'amounts', header: 'Amounts', render: (e) => <Amounts e={e} /> },
                    { key: 'sessions', header: 'Sessions involved', render: (e) => <Sessions e={e} /> },
                  ]}
                />
                <Pagination total={d.total} limit={limit} offset={offset} onChange={setOffset} />
              </>
            )}
          </QueryState>
        </Card>
      )}
      <Card title="What is listed">
        <dl className="bo-exc-help">
          {EXCEPTION_KINDS.map((k) => (
            <div key={k}>
              <dt>{EXCEPTION_KIND_LABELS[k]}</dt>
              <dd>{KIND_HELP[k]}</dd>
            </div>
          ))}
        </dl>
        <p className="bo-muted">Amounts are the sessions’ amounts, payer-borne fees excluded. The list is computed from the payments themselves, so it is always current.</p>
      </Card>
    </div>
  );
}

function WhatHappened({ e }: { e: FinanceException }) {
  return (
    <div className="bo-exc-what" data-kind={e.kind}>
      <StatusBadge status={KIND_TONE[e.kind]} label={EXCEPTION_KIND_LABELS[e.kind]} />
      <p>{e.summary}</p>
    </div>
  );
}

function Amounts({ e }: { e: FinanceException }) {
  const m = (n: number) => formatMoney(n, e.currency);
  const diff = e.difference_minor;
  return (
    <dl className="bo-exc-amounts">
      <dt>Billed</dt>
      <dd>{e.billed_minor > 0 ? m(e.billed_minor) : 'no lines'}</dd>
      <dt>This payment</dt>
      <dd>{m(e.amount_minor)}</dd>
      <dt>Collected</dt>
      <dd>{m(e.collected_minor)}</dd>
      {e.billed_minor > 0 && (
        <>
          <dt>{diff > 0 ? 'Over-paid' : diff < 0 ? 'Outstanding' : 'Balance'}</dt>
          <dd className={diff > 0 ? 'bo-exc-over' : undefined}>{m(Math.abs(diff))}</dd>
        </>
      )}
    </dl>
  );
}

function Sessions({ e }: { e: FinanceException }) {
  return (
    <ul className="bo-exc-sessions">
      {e.sessions.map((s) => (
        <li key={s.id} className={s.trigger ? 'bo-exc-sessions__trigger' : undefined}>
          <Link to={`${FINANCE}/sessions/${encodeURIComponent(s.id)}`}>
            <ShortId value={s.id} />
          </Link>{' '}
          <span title={`Paid ${formatDateTime(s.finalized_at, { seconds: true })}`}>
            {formatMoney(s.amount_minor, e.currency)} · {railLabel(s.paid_rail)}
          </span>
          {s.trigger && <span className="bo-muted"> · this payment</span>}
        </li>
      ))}
    </ul>
  );
}
