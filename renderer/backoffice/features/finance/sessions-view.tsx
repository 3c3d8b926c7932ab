import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useT, type T } from '../../../ui/i18n';
import { useRouter } from '../../router';
import { useApi } from '../common/api';
import { labelsWith } from '../common/labels';
import { amountPlaceholder, dayEndIso, dayStartIso, formatDateTime, formatMoney, parseAmount, useAmountLocale } from '../common/format';
import { FEE_CURRENCIES } from '../admin/fee-currencies';
import { amountErrorText } from '../../../ui/amount-text';
import { NoMatch } from '../common/filter-hint';
import { listPager, useListPages } from '../common/paging';
import { Card, CopyId, DataTable, DetailList, Empty, InputField, Money, Mono, Pagination, QueryState, SelectField, ShortId, StatusBadge, type SortState } from '../../../ui/blocks';
import { FINANCE_BASE as BASE, InvoiceRefCell } from './finance-base';
import { financeQueries, type SessionFilters } from './finance.queries';
import type { SessionRow } from '../../../../shared/schemas/backoffice';
import { settlement, settlementColumns } from './settlement';
import { SessionTimeline } from './timeline';

const statusOptions = (t: T) => [
  { value: '', label: t('finance.sessions.anyStatus') },
  ...['open', 'pending', 'success', 'failed', 'expired'].map((s) => ({ value: s, label: labelsWith(t).sessionStatus(s) })),
];
const modeOptions = (t: T) => [
  { value: '', label: t('finance.sessions.liveAndTest') },
  { value: 'live', label: t('finance.sessions.liveOnly') },
  { value: 'test', label: t('finance.sessions.testOnly') },
];

const railOptions = (t: T) => [{ value: '', label: t('finance.sessions.anyMethod') }, ...['momo', 'card', 'bank_transfer', 'cash'].map((r) => ({ value: r, label: labelsWith(t).rail(r) }))];

export function SessionsView({ merchantId }: { merchantId: string | undefined }) {
  const t = useT();
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
        <SelectField label={t('finance.status')} value={status} onChange={change(setStatus)} options={statusOptions(t)} />
        <SelectField label={t('finance.sessions.method')} value={rail} onChange={change(setRail)} options={railOptions(t)} />
        <SelectField label={t('finance.sessions.mode')} value={mode} onChange={change(setMode)} options={modeOptions(t)} />
        <InputField
          label={t('finance.sessions.search')}
          value={search}
          onChange={change(setSearch)}
          placeholder={t('finance.sessions.searchPlaceholder')}
          wide
          // The server's trigram index needs 3 characters (finance-search.ts): shorter text matches a whole invoice ref only.
          hint={search.trim().length > 0 && search.trim().length < 3 ? t('finance.sessions.searchShort') : undefined}
        />
        <InputField
          label={t('finance.amount')}
          value={amount}
          onChange={change(setAmount)}
          placeholder={amountPlaceholder(amountCurrency, locale)}
          inputMode="decimal"
          error={amountErrorText(t, amountRead) ?? undefined}
        />
        <SelectField label={t('finance.sessions.currency')} value={amountCurrency} onChange={change(setAmountCurrency)} options={FEE_CURRENCIES.map((c) => ({ value: c, label: c }))} />
        <InputField label={t('finance.from')} type="date" value={fromDay} onChange={change(setFromDay)} />
        <InputField label={t('finance.to')} type="date" value={toDay} onChange={change(setToDay)} />
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
            {t('finance.sessions.clear')}
          </button>
        )}
        <span className="bo-muted bo-live" aria-live="polite">
          {sessions.isFetching ? t('finance.sessions.updating') : t('finance.sessions.live')}
        </span>
      </div>
      <QueryState
        query={sessions}
        isEmpty={(d) => d.total === 0}
        empty={filtered ? <NoMatch /> : <Empty title={t('finance.sessions.empty')}>{t('finance.sessions.emptyHint')}</Empty>}
      >
        {(d) => (
          <>
            <DataTable
              caption={t('finance.sessions.caption')}
              rows={d.sessions}
              rowKey={(r) => r.id}
              sort={sort}
              onSort={(s) => {
                setSort(s);
                pages.restart();
              }}
              onRowClick={(r) => navigate(`${BASE}/sessions/${encodeURIComponent(r.id)}`)}
              columns={[
                { key: 'amount', header: t('finance.amount'), sortKey: 'amount_minor', align: 'right', render: (r) => <Money minor={r.amount_minor} currency={r.currency} strong /> },
                ...settlementColumns(t),
                { key: 'status', header: t('finance.status'), sortKey: 'status', render: (r) => <StatusBadge status={r.status} kind="session" /> },
                {
                  key: 'invoice',
                  header: t('finance.invoice'),
                  sortKey: 'invoice_ref',
                  render: (r) => <InvoiceRefCell invoiceRef={r.invoice_ref} mode={r.mode} />,
                },
                { key: 'payer', header: t('finance.payer'), render: (r) => (r.customer_name ? <span translate="no">{r.customer_name}</span> : <span className="bo-muted">—</span>) },
                { key: 'rail', header: t('finance.paidBy'), render: (r) => labelsWith(t).rail(r.paid_rail) },
                { key: 'created', header: t('finance.created'), sortKey: 'created_at', render: (r) => <time dateTime={r.created_at}>{formatDateTime(r.created_at)}</time> },
                { key: 'id', header: t('finance.session'), wide: true, render: (r) => <ShortId value={r.id} /> },
              ]}
            />
            <Pagination {...listPager(pages, { total: d.total, capped: d.total_capped, rows: d.sessions.length, limit }, sessions.isPlaceholderData ? null : d.next_cursor)} />
          </>
        )}
      </QueryState>
    </Card>
  );
}

function feeBearerText(t: T, r: SessionRow): string {
  const paid = settlement(r);
  if (!paid) return t('net.notPaid');
  if (!paid.bearer) return t('net.none');
  return paid.bearer === 'payer' ? t('net.payer') : t('net.merchant');
}

export function SessionDetailView({ id }: { id: string }) {
  const t = useT();
  const api = useApi();
  const { navigate } = useRouter();
  const detail = useQuery(financeQueries.session(api, id));
  return (
    <>
      <button type="button" className="bo-btn bo-btn--secondary bo-btn--sm bo-back" onClick={() => navigate(BASE)}>
        {t('finance.sessions.back')}
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
                    [t('finance.session'), <CopyId key="id" value={d.session.id} what={t('net.refSession')} />],
                    [t('finance.invoice'), <Mono key="inv">{d.session.invoice_ref}</Mono>],
                    [t('finance.amount'), formatMoney(d.session.amount_minor, d.session.currency)],
                    [t('finance.fee'), d.session.fee_minor === null ? t('finance.sessions.notPaidYet') : formatMoney(d.session.fee_minor, d.session.currency)],
                    [t('finance.collected'), d.session.collected_minor === null ? t('finance.sessions.notPaidYet') : formatMoney(d.session.collected_minor, d.session.currency)],
                    [t('net.feePaidBy'), feeBearerText(t, d.session)],
                    [t('net.toMerchant'), settlement(d.session) ? formatMoney(settlement(d.session)!.net, d.session.currency) : t('net.notPaid')],
                    [t('finance.sessions.paymentReference'), d.session.payment_reference ? <Mono key="ref">{d.session.payment_reference}</Mono> : '—'],
                    [t('finance.sessions.description'), d.session.description ? <span key="desc" translate="no">{d.session.description}</span> : '—'],
                    [t('finance.payer'), <span key="payer" translate="no">{[d.session.customer_name, d.session.customer_email].filter(Boolean).join(' · ') || '—'}</span>],
                    [t('finance.paidBy'), labelsWith(t).rail(d.session.paid_rail)],
                    [t('finance.created'), <time key="created" dateTime={d.session.created_at}>{formatDateTime(d.session.created_at, { seconds: true })}</time>],
                    [t('finance.sessions.expires'), <time key="expires" dateTime={d.session.expires_at}>{formatDateTime(d.session.expires_at)}</time>],
                    [t('finance.sessions.finalised'), d.session.finalized_at ? <time key="final" dateTime={d.session.finalized_at}>{formatDateTime(d.session.finalized_at, { seconds: true })}</time> : '—'],
                  ]}
                />
              </Card>
              <Card title={t('finance.sessions.lines')} className="bo-card--flush">
                {d.lines.length === 0 ? (
                  <Empty title={t('finance.sessions.noLines')}>{t('finance.sessions.noLinesHint')}</Empty>
                ) : (
                  <DataTable
                    rows={d.lines}
                    rowKey={(l) => l.code}
                    columns={[
                      { key: 'code', header: t('finance.code'), render: (l) => <Mono>{l.code}</Mono> },
                      { key: 'name', header: t('finance.name'), render: (l) => <span translate="no">{l.name}</span> },
                      { key: 'amount', header: t('finance.amount'), align: 'right', render: (l) => <Money minor={l.amount_minor} currency={l.currency} /> },
                      { key: 'remitted', header: t('finance.remitted'), render: (l) => <StatusBadge status={l.remitted ? 'remitted' : 'pending'} label={l.remitted ? t('finance.remitted') : t('finance.notYet')} /> },
                    ]}
                  />
                )}
              </Card>
            </div>
            <Card title={t('finance.sessions.timeline')} testId="session-timeline">
              <SessionTimeline entries={d.timeline} />
            </Card>
          </div>
        )}
      </QueryState>
    </>
  );
}

