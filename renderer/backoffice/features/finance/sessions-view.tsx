import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useRouter } from '../../router';
import { useApi } from '../common/api';
import { amountPlaceholder, dayEndIso, dayStartIso, formatDateTime, formatMoney, parseAmount, railLabel, useAmountLocale } from '../common/format';
import { FEE_CURRENCIES } from '../admin/fee-currencies';
import { NoMatch } from '../common/filter-hint';
import { listPager, useListPages } from '../common/paging';
import { Card, DataTable, DetailList, Empty, InputField, Money, Mono, Pagination, QueryState, SelectField, ShortId, StatusBadge, type SortState } from '../../../ui/blocks';
import { FINANCE_BASE as BASE, InvoiceRefCell } from './finance-base';
import { financeQueries, type SessionFilters } from './finance.queries';

const STATUS_OPTIONS = [
  { value: '', label: 'Any status' },
  ...['open', 'pending', 'success', 'failed', 'expired'].map((s) => ({ value: s, label: s[0]!.toUpperCase() + s.slice(1) })),
];
const MODE_OPTIONS = [
  { value: '', label: 'Live and test' },
  { value: 'live', label: 'Live only' },
  { value: 'test', label: 'Test only' },
];
const RAIL_OPTIONS = [{ value: '', label: 'Any method' }, ...['momo', 'card', 'bank_transfer', 'cash'].map((r) => ({ value: r, label: railLabel(r) }))];

export function SessionsView({ merchantId }: { merchantId: string | undefined }) {
  const api = useApi();
  const { navigate } = useRouter();
  const [status, setStatus] = useState('');
  const [rail, setRail] = useState('');
  const [mode, setMode] = useState('');
  const [search, setSearch] = useState('');
  const [amount, setAmount] = useState('');
  const [amountCurrency, setAmountCurrency] = useState('GHS');
  const locale = useAmountLocale();
  const [fromDay, setFromDay] = useState('');
  const [toDay, setToDay] = useState('');
  const [sort, setSort] = useState<SortState>({ key: 'created_at', dir: 'desc' });
  const limit = 20;
  const pages = useListPages(limit);
  // An amount is typed as staff read it, in their locale ("125,45" in French), in the currency chosen beside it.
  const amountRead = amount.trim() ? parseAmount(amount, amountCurrency, locale) : null;
  const amountMinor = amountRead?.ok ? amountRead.minor : null;
  const filters: SessionFilters = {
    status,
    rail,
    mode,
    q: search.trim(),
    amount_minor: amountMinor ?? undefined,
    from: dayStartIso(fromDay),
    to: dayEndIso(toDay),
    sort: sort.key,
    dir: sort.dir,
    limit,
    offset: pages.offset,
    cursor: pages.cursor,
  };
  const sessions = useQuery(financeQueries.sessions(api, merchantId, filters));
  const change = <T,>(set: (v: T) => void) => (v: T) => {
    set(v);
    pages.restart();
  };
  const filtered = status || rail || mode || search || amount || fromDay || toDay;

  return (
    <Card className="bo-card--flush" testId="sessions-list">
      <div className="bo-filters">
        <SelectField label="Status" value={status} onChange={change(setStatus)} options={STATUS_OPTIONS} />
        <SelectField label="Method" value={rail} onChange={change(setRail)} options={RAIL_OPTIONS} />
        <SelectField label="Mode" value={mode} onChange={change(setMode)} options={MODE_OPTIONS} />
        <InputField
          label="Search"
          value={search}
          onChange={change(setSearch)}
          placeholder="Payer, phone last 4, session, invoice, slip or bank ref"
          wide
          // The server's trigram index needs 3 characters (finance-search.ts): shorter text matches a whole invoice ref only.
          hint={search.trim().length > 0 && search.trim().length < 3 ? 'Type at least 3 characters to search names (shorter: a whole invoice ref)' : undefined}
        />
        <InputField
          label="Amount"
          value={amount}
          onChange={change(setAmount)}
          placeholder={amountPlaceholder(amountCurrency, locale)}
          inputMode="decimal"
          error={amountRead && !amountRead.ok ? amountRead.message : undefined}
        />
        <SelectField label="Currency" value={amountCurrency} onChange={change(setAmountCurrency)} options={FEE_CURRENCIES.map((c) => ({ value: c, label: c }))} />
        <InputField label="From" type="date" value={fromDay} onChange={change(setFromDay)} />
        <InputField label="To" type="date" value={toDay} onChange={change(setToDay)} />
        {filtered && (
          <button
            type="button"
            className="bo-btn bo-btn--secondary bo-btn--sm"
            onClick={() => {
              setStatus('');
              setRail('');
              setMode('');
              setSearch('');
              setAmount('');
              setFromDay('');
              setToDay('');
              pages.restart();
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
        empty={filtered ? <NoMatch /> : <Empty title="No checkout sessions yet">Sessions appear here as soon as the merchant creates them.</Empty>}
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
                pages.restart();
              }}
              onRowClick={(r) => navigate(`${BASE}/sessions/${encodeURIComponent(r.id)}`)}
              columns={[
                { key: 'amount', header: 'Amount', sortKey: 'amount_minor', align: 'right', render: (r) => <Money minor={r.amount_minor} currency={r.currency} strong /> },
                { key: 'fee', header: 'Fee', align: 'right', nowrap: true, render: (r) => (r.fee_minor === null ? <span className="bo-muted">—</span> : <Money minor={r.fee_minor} currency={r.currency} />) },
                { key: 'collected', header: 'Collected', align: 'right', nowrap: true, render: (r) => (r.collected_minor === null ? <span className="bo-muted">—</span> : <Money minor={r.collected_minor} currency={r.currency} />) },
                { key: 'status', header: 'Status', sortKey: 'status', render: (r) => <StatusBadge status={r.status} kind="session" /> },
                {
                  key: 'invoice',
                  header: 'Invoice',
                  sortKey: 'invoice_ref',
                  render: (r) => <InvoiceRefCell invoiceRef={r.invoice_ref} mode={r.mode} />,
                },
                { key: 'payer', header: 'Payer', nowrap: true, render: (r) => r.customer_name ?? <span className="bo-muted">—</span> },
                { key: 'rail', header: 'Paid by', nowrap: true, render: (r) => railLabel(r.paid_rail) },
                { key: 'created', header: 'Created', sortKey: 'created_at', nowrap: true, render: (r) => formatDateTime(r.created_at) },
                { key: 'id', header: 'Session', render: (r) => <ShortId value={r.id} /> },
              ]}
            />
            <Pagination {...listPager(pages, { total: d.total, capped: d.total_capped, rows: d.sessions.length, limit }, sessions.isPlaceholderData ? null : d.next_cursor)} />
          </>
        )}
      </QueryState>
    </Card>
  );
}

export function SessionDetailView({ id }: { id: string }) {
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
                    {formatMoney(d.session.amount_minor, d.session.currency)} <StatusBadge status={d.session.status} kind="session" />
                  </span>
                }
                testId="session-detail"
              >
                <DetailList
                  items={[
                    ['Session', <Mono key="id">{d.session.id}</Mono>],
                    ['Invoice', <Mono key="inv">{d.session.invoice_ref}</Mono>],
                    ['Amount', formatMoney(d.session.amount_minor, d.session.currency)],
                    ['Fee', d.session.fee_minor === null ? 'Not paid yet' : formatMoney(d.session.fee_minor, d.session.currency)],
                    ['Collected', d.session.collected_minor === null ? 'Not paid yet' : formatMoney(d.session.collected_minor, d.session.currency)],
                    ['Payment reference', d.session.payment_reference ? <Mono key="ref">{d.session.payment_reference}</Mono> : '—'],
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

