import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useRouter } from '../../router';
import { ROUTES } from '../../routes';
import { useSession } from '../auth/session';
import { errorMessage, useApi } from '../common/api';
import { dateInputValue, dayEndIso, dayStartIso, formatDateTime, formatMoney, railLabel } from '../common/format';
import {
  Card,
  DataTable,
  DetailList,
  Empty,
  InputField,
  Money,
  Mono,
  PageTitle,
  Pagination,
  QueryState,
  SelectField,
  ShortId,
  StatusBadge,
  Tabs,
  type SortState,
} from '../common/ui';
import { financeQueries, paymentsCsvPath, setRevenueLineActive, type SessionFilters } from './finance.queries';

const BASE = ROUTES.finance.path;
type Tab = 'sessions' | 'invoices' | 'revenue-lines' | 'export';

/** Finance: sessions (live), invoices, revenue lines and the reconciliation export, for one merchant. */
export function FinancePage() {
  const api = useApi();
  const { session } = useSession();
  const { path, navigate } = useRouter();
  const isAdmin = session?.user.role === 'admin';
  const merchants = useQuery(financeQueries.merchants(api));
  const [picked, setPicked] = useState<string>('');
  useEffect(() => {
    if (isAdmin && !picked && merchants.data?.merchants[0]) setPicked(merchants.data.merchants[0].id);
  }, [isAdmin, picked, merchants.data]);
  const merchantId = isAdmin ? picked || undefined : undefined;
  const merchantName = isAdmin ? merchants.data?.merchants.find((m) => m.id === picked)?.name : merchants.data?.merchants[0]?.name;

  const rest = path.startsWith(BASE) ? path.slice(BASE.length).replace(/^\/+/, '') : '';
  const [section = 'sessions', detail] = rest.split('/');
  const tab: Tab = (['sessions', 'invoices', 'revenue-lines', 'export'] as const).find((t) => t === section) ?? 'sessions';
  const go = (t: Tab) => navigate(t === 'sessions' ? BASE : `${BASE}/${t}`);

  return (
    <div className="bo-page">
      <PageTitle
        title="Finance"
        subtitle={merchantName ? `Payments and invoices of ${merchantName}` : 'Payments and invoices'}
        actions={
          isAdmin && merchants.data ? (
            <SelectField
              label="Merchant"
              value={picked}
              onChange={setPicked}
              options={merchants.data.merchants.map((m) => ({ value: m.id, label: m.name }))}
            />
          ) : undefined
        }
      />
      <Tabs
        tabs={[
          { key: 'sessions', label: 'Sessions' },
          { key: 'invoices', label: 'Invoices' },
          { key: 'revenue-lines', label: 'Revenue lines' },
          { key: 'export', label: 'Reconciliation export' },
        ]}
        current={tab}
        onChange={go}
      />
      {isAdmin && !merchantId ? (
        merchants.isPending ? null : <Card><Empty title="No merchant yet">Create a merchant integration first (Administration).</Empty></Card>
      ) : tab === 'sessions' && detail ? (
        <SessionDetailView id={decodeURIComponent(detail)} />
      ) : tab === 'sessions' ? (
        <SessionsView merchantId={merchantId} />
      ) : tab === 'invoices' && detail ? (
        <InvoiceDetailView merchantId={merchantId} invoiceRef={decodeURIComponent(detail)} />
      ) : tab === 'invoices' ? (
        <InvoicesView merchantId={merchantId} />
      ) : tab === 'revenue-lines' ? (
        <RevenueLinesViewPanel merchantId={merchantId} />
      ) : (
        <ExportView merchantId={merchantId} />
      )}
    </div>
  );
}

const STATUS_OPTIONS = [
  { value: '', label: 'Any status' },
  ...['open', 'pending', 'success', 'failed', 'expired'].map((s) => ({ value: s, label: s[0]!.toUpperCase() + s.slice(1) })),
];
const RAIL_OPTIONS = [{ value: '', label: 'Any method' }, ...['momo', 'card', 'bank_transfer', 'cash'].map((r) => ({ value: r, label: railLabel(r) }))];

function SessionsView({ merchantId }: { merchantId: string | undefined }) {
  const api = useApi();
  const { navigate } = useRouter();
  const [status, setStatus] = useState('');
  const [rail, setRail] = useState('');
  const [invoiceRef, setInvoiceRef] = useState('');
  const [fromDay, setFromDay] = useState('');
  const [toDay, setToDay] = useState('');
  const [sort, setSort] = useState<SortState>({ key: 'created_at', dir: 'desc' });
  const [offset, setOffset] = useState(0);
  const limit = 20;
  const filters: SessionFilters = {
    status,
    rail,
    invoice_ref: invoiceRef.trim(),
    from: dayStartIso(fromDay),
    to: dayEndIso(toDay),
    sort: sort.key,
    dir: sort.dir,
    limit,
    offset,
  };
  const sessions = useQuery(financeQueries.sessions(api, merchantId, filters));
  const change = <T,>(set: (v: T) => void) => (v: T) => {
    set(v);
    setOffset(0);
  };
  const filtered = status || rail || invoiceRef || fromDay || toDay;

  return (
    <Card className="bo-card--flush" testId="sessions-list">
      <div className="bo-filters">
        <SelectField label="Status" value={status} onChange={change(setStatus)} options={STATUS_OPTIONS} />
        <SelectField label="Method" value={rail} onChange={change(setRail)} options={RAIL_OPTIONS} />
        <InputField label="Invoice ref" value={invoiceRef} onChange={change(setInvoiceRef)} placeholder="Starts with…" />
        <InputField label="From" type="date" value={fromDay} onChange={change(setFromDay)} />
        <InputField label="To" type="date" value={toDay} onChange={change(setToDay)} />
        {filtered && (
          <button
            type="button"
            className="bo-btn bo-btn--secondary bo-btn--sm"
            onClick={() => {
              setStatus('');
              setRail('');
              setInvoiceRef('');
              setFromDay('');
              setToDay('');
              setOffset(0);
            }}
          >
            Clear filters
          </button>
        )}
        <span className="bo-muted bo-live" aria-live="polite">
          {sessions.isFetching ? 'Updating…' : 'Live'}
        </span>
      </div>
      <QueryState
        query={sessions}
        isEmpty={(d) => d.total === 0}
        empty={<Empty title={filtered ? 'No session matches these filters' : 'No checkout sessions yet'}>{filtered ? 'Clear a filter to see more.' : 'Sessions appear here as soon as the merchant creates them.'}</Empty>}
      >
        {(d) => (
          <>
            <DataTable
              caption="Checkout sessions"
              rows={d.sessions}
              rowKey={(r) => r.id}
              sort={sort}
              onSort={(s) => {
                setSort(s);
                setOffset(0);
              }}
              onRowClick={(r) => navigate(`${BASE}/sessions/${encodeURIComponent(r.id)}`)}
              columns={[
                { key: 'amount', header: 'Amount', sortKey: 'amount_minor', align: 'right', render: (r) => <Money minor={r.amount_minor} currency={r.currency} strong /> },
                { key: 'status', header: 'Status', sortKey: 'status', render: (r) => <StatusBadge status={r.status} /> },
                { key: 'invoice', header: 'Invoice', sortKey: 'invoice_ref', render: (r) => <Mono>{r.invoice_ref}</Mono> },
                { key: 'payer', header: 'Payer', nowrap: true, render: (r) => r.customer_name ?? <span className="bo-muted">—</span> },
                { key: 'rail', header: 'Paid by', nowrap: true, render: (r) => railLabel(r.paid_rail) },
                { key: 'created', header: 'Created', sortKey: 'created_at', nowrap: true, render: (r) => formatDateTime(r.created_at) },
                { key: 'id', header: 'Session', render: (r) => <ShortId value={r.id} /> },
              ]}
            />
            <Pagination total={d.total} limit={limit} offset={offset} onChange={setOffset} />
          </>
        )}
      </QueryState>
    </Card>
  );
}

function SessionDetailView({ id }: { id: string }) {
  const api = useApi();
  const { navigate } = useRouter();
  const detail = useQuery(financeQueries.session(api, id));
  return (
    <>
      <button type="button" className="bo-btn bo-btn--secondary bo-btn--sm bo-back" onClick={() => navigate(BASE)}>
        ← All sessions
      </button>
      <QueryState query={detail}>
        {(d) => (
          <div className="bo-grid-2">
            <div>
              <Card
                title={
                  <span className="bo-title-with-badge">
                    {formatMoney(d.session.amount_minor, d.session.currency)} <StatusBadge status={d.session.status} />
                  </span>
                }
                testId="session-detail"
              >
                <DetailList
                  items={[
                    ['Session', <Mono key="id">{d.session.id}</Mono>],
                    ['Invoice', <Mono key="inv">{d.session.invoice_ref}</Mono>],
                    ['Description', d.session.description ?? '—'],
                    ['Payer', [d.session.customer_name, d.session.customer_email].filter(Boolean).join(' · ') || '—'],
                    ['Paid by', railLabel(d.session.paid_rail)],
                    ['Created', formatDateTime(d.session.created_at, { seconds: true })],
                    ['Expires', formatDateTime(d.session.expires_at)],
                    ['Finalised', formatDateTime(d.session.finalized_at, { seconds: true })],
                  ]}
                />
              </Card>
              <Card title="Invoice lines" className="bo-card--flush">
                {d.lines.length === 0 ? (
                  <Empty title="No invoice lines">The merchant recorded no lines for this invoice reference.</Empty>
                ) : (
                  <DataTable
                    rows={d.lines}
                    rowKey={(l) => l.code}
                    columns={[
                      { key: 'code', header: 'Code', render: (l) => <Mono>{l.code}</Mono> },
                      { key: 'name', header: 'Name', render: (l) => l.name },
                      { key: 'amount', header: 'Amount', align: 'right', render: (l) => <Money minor={l.amount_minor} currency={l.currency} /> },
                      { key: 'remitted', header: 'Remitted', render: (l) => <StatusBadge status={l.remitted ? 'remitted' : 'pending'} label={l.remitted ? 'Remitted' : 'Not yet'} /> },
                    ]}
                  />
                )}
              </Card>
            </div>
            <Card title="Timeline" testId="session-timeline">
              <ol className="bo-timeline">
                {d.timeline.map((e, i) => (
                  <li key={`${e.at}-${i}`} className="bo-timeline__item">
                    <span className={`bo-timeline__dot bo-timeline__dot--${e.kind}`} aria-hidden="true" />
                    <div className="bo-timeline__title">{e.title}</div>
                    <div className="bo-timeline__meta">{formatDateTime(e.at, { seconds: true })}</div>
                    {e.detail && <div className="bo-timeline__meta">{e.detail}</div>}
                  </li>
                ))}
              </ol>
            </Card>
          </div>
        )}
      </QueryState>
    </>
  );
}

function InvoicesView({ merchantId }: { merchantId: string | undefined }) {
  const api = useApi();
  const { navigate } = useRouter();
  const [q, setQ] = useState('');
  const [remitted, setRemitted] = useState('');
  const [sort, setSort] = useState<SortState>({ key: 'updated_at', dir: 'desc' });
  const [offset, setOffset] = useState(0);
  const limit = 20;
  const invoices = useQuery(financeQueries.invoices(api, merchantId, { q: q.trim(), remitted, sort: sort.key, dir: sort.dir, limit, offset }));
  return (
    <Card className="bo-card--flush" testId="invoices-list">
      <div className="bo-filters">
        <InputField label="Invoice ref" value={q} onChange={(v) => (setQ(v), setOffset(0))} placeholder="Contains…" />
        <SelectField
          label="Remitted"
          value={remitted}
          onChange={(v) => (setRemitted(v), setOffset(0))}
          options={[
            { value: '', label: 'All invoices' },
            { value: 'true', label: 'Fully paid' },
            { value: 'false', label: 'Not fully paid' },
          ]}
        />
      </div>
      <QueryState query={invoices} isEmpty={(d) => d.total === 0} empty={<Empty title="No invoices">Invoices appear when the merchant records invoice lines or creates a session.</Empty>}>
        {(d) => (
          <>
            <DataTable
              caption="Invoices"
              rows={d.invoices}
              rowKey={(r) => r.invoice_ref}
              sort={sort}
              onSort={(s) => {
                setSort(s);
                setOffset(0);
              }}
              onRowClick={(r) => navigate(`${BASE}/invoices/${encodeURIComponent(r.invoice_ref)}`)}
              columns={[
                { key: 'ref', header: 'Invoice', sortKey: 'invoice_ref', render: (r) => <Mono>{r.invoice_ref}</Mono> },
                { key: 'lines', header: 'Lines', sortKey: 'line_count', align: 'right', render: (r) => r.line_count },
                { key: 'billed', header: 'Billed', sortKey: 'billed_minor', align: 'right', render: (r) => <Money minor={r.billed_minor} currency={r.currency} strong /> },
                { key: 'paid', header: 'Paid', align: 'right', render: (r) => <Money minor={r.paid_minor} currency={r.currency} /> },
                { key: 'outstanding', header: 'Outstanding', align: 'right', render: (r) => <Money minor={r.outstanding_minor} currency={r.currency} /> },
                { key: 'remitted', header: 'Remitted', render: (r) => <StatusBadge status={r.remitted ? 'remitted' : 'pending'} label={r.remitted ? `Fully paid ${formatDateTime(r.remitted_at)}` : r.paid_minor > 0 ? 'Part-paid' : 'Not paid'} /> },
                { key: 'session', header: 'Latest session', render: (r) => (r.latest_session_status ? <StatusBadge status={r.latest_session_status} /> : <span className="bo-muted">none</span>) },
                { key: 'updated', header: 'Updated', sortKey: 'updated_at', nowrap: true, render: (r) => formatDateTime(r.updated_at) },
              ]}
            />
            <Pagination total={d.total} limit={limit} offset={offset} onChange={setOffset} />
          </>
        )}
      </QueryState>
    </Card>
  );
}

function InvoiceDetailView({ merchantId, invoiceRef }: { merchantId: string | undefined; invoiceRef: string }) {
  const api = useApi();
  const { navigate } = useRouter();
  const detail = useQuery(financeQueries.invoice(api, merchantId, invoiceRef));
  return (
    <>
      <button type="button" className="bo-btn bo-btn--secondary bo-btn--sm bo-back" onClick={() => navigate(`${BASE}/invoices`)}>
        ← All invoices
      </button>
      <QueryState query={detail}>
        {(d) => (
          <>
            <div className="bo-stats">
              <Stat label="Invoice" value={d.invoice.invoice_ref} />
              <Stat label="Billed" value={formatMoney(d.invoice.billed_minor, d.invoice.currency)} />
              <Stat label="Paid" value={formatMoney(d.invoice.paid_minor, d.invoice.currency)} />
              <Stat label="Outstanding" value={formatMoney(d.invoice.outstanding_minor, d.invoice.currency)} />
              <Stat label="Fully paid" value={d.invoice.remitted ? formatDateTime(d.invoice.remitted_at) : 'Not yet'} />
            </div>
            <Card title="Lines" className="bo-card--flush">
              {d.lines.length === 0 ? (
                <Empty title="No lines recorded" />
              ) : (
                <DataTable
                  rows={d.lines}
                  rowKey={(l) => l.code}
                  columns={[
                    { key: 'code', header: 'Code', sortValue: (l) => l.code, render: (l) => <Mono>{l.code}</Mono> },
                    { key: 'name', header: 'Name', sortValue: (l) => l.name, render: (l) => l.name },
                    { key: 'amount', header: 'Amount', align: 'right', sortValue: (l) => l.amount_minor, render: (l) => <Money minor={l.amount_minor} currency={l.currency} /> },
                    { key: 'remitted', header: 'Remitted', sortValue: (l) => Number(l.remitted), render: (l) => <StatusBadge status={l.remitted ? 'remitted' : 'pending'} label={l.remitted ? 'Remitted' : 'Not yet'} /> },
                  ]}
                />
              )}
            </Card>
            <Card title="Sessions" className="bo-card--flush">
              {d.sessions.length === 0 ? (
                <Empty title="No checkout session for this invoice yet" />
              ) : (
                <DataTable
                  rows={d.sessions}
                  rowKey={(s) => s.id}
                  onRowClick={(s) => navigate(`${BASE}/sessions/${encodeURIComponent(s.id)}`)}
                  defaultSort={{ key: 'created', dir: 'desc' }}
                  columns={[
                    { key: 'amount', header: 'Amount', align: 'right', sortValue: (s) => s.amount_minor, render: (s) => <Money minor={s.amount_minor} currency={s.currency} /> },
                    { key: 'status', header: 'Status', sortValue: (s) => s.status, render: (s) => <StatusBadge status={s.status} /> },
                    { key: 'rail', header: 'Paid by', sortValue: (s) => railLabel(s.paid_rail), render: (s) => railLabel(s.paid_rail) },
                    { key: 'created', header: 'Created', sortValue: (s) => s.created_at, render: (s) => formatDateTime(s.created_at) },
                    { key: 'id', header: 'Session', sortValue: (s) => s.id, render: (s) => <ShortId value={s.id} /> },
                  ]}
                />
              )}
            </Card>
          </>
        )}
      </QueryState>
    </>
  );
}

function Stat({ label, value }: { label: string; value: string }) {
  return (
    <div className="bo-stat">
      <div className="bo-stat__label">{label}</div>
      <div className="bo-stat__value">{value}</div>
    </div>
  );
}

function RevenueLinesViewPanel({ merchantId }: { merchantId: string | undefined }) {
  const api = useApi();
  const queryClient = useQueryClient();
  const lines = useQuery(financeQueries.revenueLines(api, merchantId));
  const [error, setError] = useState<string | null>(null);
  const toggle = useMutation({
    mutationFn: ({ id, active }: { id: string; active: boolean }) => setRevenueLineActive(api, merchantId, id, active),
    onSuccess: (view) => {
      setError(null);
      queryClient.setQueryData(financeQueries.revenueLines(api, merchantId).queryKey, view);
    },
    onError: (err) => setError(errorMessage(err)),
  });
  return (
    <QueryState query={lines}>
      {(d) => (
        <>
          <div className="bo-stats">
            <Stat label="Revenue lines" value={String(d.counts.total)} />
            <Stat label="Active" value={String(d.counts.active)} />
            <Stat label="Inactive" value={String(d.counts.inactive)} />
          </div>
          {error && (
            <div className="bo-alert bo-alert--error" role="alert">
              {error}
            </div>
          )}
          <Card title="Service codes" className="bo-card--flush" testId="revenue-lines">
            {d.lines.length === 0 ? (
              <Empty title="No revenue lines">The merchant syncs its service codes with POST /api/v1/revenue-lines.</Empty>
            ) : (
              <DataTable
                rows={d.lines}
                rowKey={(l) => l.id}
                pageSize={20}
                defaultSort={{ key: 'code', dir: 'asc' }}
                columns={[
                  { key: 'code', header: 'Code', sortValue: (l) => l.code, render: (l) => <Mono>{l.code}</Mono> },
                  { key: 'name', header: 'Name', sortValue: (l) => l.name, render: (l) => l.name },
                  { key: 'state', header: 'State', sortValue: (l) => (l.active ? 'active' : 'inactive'), render: (l) => <StatusBadge status={l.active ? 'active' : 'inactive'} /> },
                  { key: 'source', header: 'Last change by', sortValue: (l) => l.source, render: (l) => (l.source === 'backoffice' ? 'Back office' : 'API sync') },
                  { key: 'synced', header: 'Last synced', sortValue: (l) => l.last_synced_at, render: (l) => formatDateTime(l.last_synced_at) },
                  {
                    key: 'action',
                    header: '',
                    align: 'right',
                    render: (l) => (
                      <button
                        type="button"
                        className={`bo-btn bo-btn--sm ${l.active ? 'bo-btn--danger' : 'bo-btn--secondary'}`}
                        disabled={toggle.isPending}
                        onClick={() => toggle.mutate({ id: l.id, active: !l.active })}
                      >
                        {l.active ? 'Deactivate' : 'Activate'}
                      </button>
                    ),
                  },
                ]}
              />
            )}
          </Card>
          <Card title="Sync history" className="bo-card--flush">
            {d.syncs.length === 0 ? (
              <Empty title="No syncs yet" />
            ) : (
              <DataTable
                rows={d.syncs}
                rowKey={(s) => s.id}
                defaultSort={{ key: 'at', dir: 'desc' }}
                columns={[
                  { key: 'at', header: 'When', sortValue: (s) => s.created_at, render: (s) => formatDateTime(s.created_at, { seconds: true }) },
                  { key: 'source', header: 'Source', sortValue: (s) => s.source, render: (s) => (s.source === 'api' ? 'API sync' : 'Back office') },
                  { key: 'created', header: 'Created', align: 'right', sortValue: (s) => s.created, render: (s) => s.created },
                  { key: 'updated', header: 'Updated', align: 'right', sortValue: (s) => s.updated, render: (s) => s.updated },
                  { key: 'reactivated', header: 'Reactivated', align: 'right', sortValue: (s) => s.reactivated, render: (s) => s.reactivated },
                  { key: 'deactivated', header: 'Deactivated', align: 'right', sortValue: (s) => s.deactivated, render: (s) => s.deactivated },
                  { key: 'unchanged', header: 'Unchanged', align: 'right', sortValue: (s) => s.unchanged, render: (s) => s.unchanged },
                  { key: 'errors', header: 'Errors', align: 'right', sortValue: (s) => s.error_count, render: (s) => s.error_count },
                ]}
              />
            )}
          </Card>
        </>
      )}
    </QueryState>
  );
}

function ExportView({ merchantId }: { merchantId: string | undefined }) {
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
      setState({ tone: 'error', text: errorMessage(err) });
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
