import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useT, type T } from '../../../ui/i18n';
import { Link, useRouter } from '../../router';
import { ROUTES } from '../../routes';
import type { InvoiceSummary } from '../../../../shared/schemas/backoffice';
import { useApi } from '../common/api';
import { formatDateTime, formatMoney } from '../common/format';
import { Card, DataTable, Empty, InputField, Money, Mono, Pagination, QueryState, SelectField, StatusBadge, type SortState } from '../../../ui/blocks';
import { NoMatch } from '../common/filter-hint';
import { listPager, useListPages } from '../common/paging';
import { FINANCE_BASE as BASE, InvoiceRefCell, Stat } from './finance-base';
import { financeQueries } from './finance.queries';
import { InvoiceSessions } from './invoice-sessions';

export function InvoicesView({ merchantId }: { merchantId: string | undefined }) {
  const t = useT();
  const api = useApi();
  const { navigate } = useRouter();
  const [q, setQ] = useState('');
  const [remitted, setRemitted] = useState('');
  const [sort, setSort] = useState<SortState>({ key: 'updated_at', dir: 'desc' });
  const limit = 20;
  // Deep pages by the cursor Next brought, not by skipping rows (useListPages).
  const pages = useListPages(limit);
  const restart = pages.restart;
  const invoices = useQuery(financeQueries.invoices(api, merchantId, { q: q.trim(), remitted, sort: sort.key, dir: sort.dir, limit, offset: pages.offset, cursor: pages.cursor }));
  return (
    <Card className="bo-card--flush" testId="invoices-list">
      <div className="bo-filters">
        <InputField label={t('finance.invoices.ref')} value={q} onChange={(v) => (setQ(v), restart())} placeholder={t('finance.invoices.contains')} />
        <SelectField
          label={t('finance.remitted')}
          value={remitted}
          onChange={(v) => (setRemitted(v), restart())}
          options={[
            { value: '', label: t('finance.invoices.all') },
            { value: 'true', label: t('finance.invoices.fullyPaid') },
            { value: 'false', label: t('finance.invoices.notFullyPaid') },
          ]}
        />
      </div>
      <QueryState query={invoices} isEmpty={(d) => d.total === 0} empty={q || remitted ? <NoMatch /> : <Empty title={t('finance.invoices.empty')}>{t('finance.invoices.emptyHint')}</Empty>}>
        {(d) => (
          <>
            <DataTable
              caption={t('finance.invoices.caption')}
              rows={d.invoices}
              rowKey={(r) => r.invoice_ref}
              sort={sort}
              onSort={(s) => {
                setSort(s);
                restart();
              }}
              onRowClick={(r) => navigate(`${BASE}/invoices/${encodeURIComponent(r.invoice_ref)}`)}
              columns={[
                {
                  key: 'ref',
                  header: t('finance.invoice'),
                  sortKey: 'invoice_ref',
                  render: (r) => <InvoiceRefCell invoiceRef={r.invoice_ref} mode={r.mode} />,
                },
                { key: 'lines', header: t('finance.invoices.lines'), sortKey: 'line_count', align: 'right', render: (r) => r.line_count },
                { key: 'billed', header: t('finance.invoices.billed'), sortKey: 'billed_minor', align: 'right', render: (r) => <Money minor={r.billed_minor} currency={r.currency} strong /> },
                { key: 'paid', header: t('finance.invoices.paid'), align: 'right', render: (r) => <Money minor={r.paid_minor} currency={r.currency} /> },
                { key: 'outstanding', header: t('finance.invoices.outstanding'), align: 'right', render: (r) => <Money minor={r.outstanding_minor} currency={r.currency} /> },
                { key: 'remitted', header: t('finance.invoices.payment'), render: (r) => <PaymentState invoice={r} /> },
                { key: 'session', header: t('finance.invoices.latestSession'), wide: true, render: (r) => (r.latest_session_status ? <StatusBadge status={r.latest_session_status} kind="session" /> : <span className="bo-muted">{t('finance.invoices.none')}</span>) },
                { key: 'updated', header: t('finance.invoices.updated'), sortKey: 'updated_at', render: (r) => <time dateTime={r.updated_at}>{formatDateTime(r.updated_at)}</time> },
              ]}
            />
            <Pagination {...listPager(pages, { total: d.total, capped: d.total_capped, rows: d.invoices.length, limit }, invoices.isPlaceholderData ? null : d.next_cursor)} />
          </>
        )}
      </QueryState>
    </Card>
  );
}

export function InvoiceDetailView({ merchantId, invoiceRef }: { merchantId: string | undefined; invoiceRef: string }) {
  const t = useT();
  const api = useApi();
  const { navigate } = useRouter();
  const detail = useInfiniteQuery(financeQueries.invoice(api, merchantId, invoiceRef));
  // A failed "Show more" keeps the pages already read on screen and says so next to the button.
  const state = { ...detail, isError: detail.isError && detail.data === undefined };
  return (
    <>
      <button type="button" className="bo-btn bo-btn--secondary bo-btn--sm bo-back" onClick={() => navigate(`${BASE}/invoices`)}>
        {t('finance.invoices.back')}
      </button>
      <QueryState query={state}>
        {(d) => {
          // The freshest page carries the freshest aggregate: totals are the server's, never a sum of the rows loaded.
          const latest = d.pages[d.pages.length - 1]!;
          return (
            <>
              <div className="bo-stats">
                <Stat label={t('finance.invoice')} value={<span translate="no">{latest.invoice.invoice_ref}</span>} />
                <Stat label={t('finance.invoices.billed')} value={latest.invoice.line_count === 0 ? t('finance.invoices.nothingBilled') : formatMoney(latest.invoice.billed_minor, latest.invoice.currency)} />
                <Stat label={t('finance.invoices.paid')} value={formatMoney(latest.invoice.paid_minor, latest.invoice.currency)} />
                {latest.invoice.payment_state === 'overpaid' ? (
                  <Stat label={t('finance.invoices.overpaid')} value={formatMoney(latest.invoice.overpaid_minor, latest.invoice.currency)} />
                ) : latest.invoice.line_count > 0 ? (
                  <Stat label={t('finance.invoices.outstanding')} value={formatMoney(latest.invoice.outstanding_minor, latest.invoice.currency)} />
                ) : null}
                <Stat
                  label={t('finance.state')}
                  value={
                    latest.invoice.payment_state === 'paid' && latest.invoice.remitted_at
                      ? t('finance.invoices.stateOn', { state: paymentLabel(t, 'paid'), date: <time dateTime={latest.invoice.remitted_at}>{formatDateTime(latest.invoice.remitted_at)}</time> })
                      : paymentLabel(t, latest.invoice.payment_state)
                  }
                />
              </div>
              <InvoiceTruth invoice={latest.invoice} />
              <Card title={t('finance.invoices.lines')} className="bo-card--flush">
                {latest.lines.length === 0 ? (
                  <Empty title={t('finance.invoices.noLines')} />
                ) : (
                  <DataTable
                    rows={latest.lines}
                    rowKey={(l) => l.code}
                    columns={[
                      { key: 'code', header: t('finance.code'), sortValue: (l) => l.code, render: (l) => <Mono>{l.code}</Mono> },
                      { key: 'name', header: t('finance.name'), sortValue: (l) => l.name, render: (l) => <span translate="no">{l.name}</span> },
                      { key: 'amount', header: t('finance.amount'), align: 'right', sortValue: (l) => l.amount_minor, render: (l) => <Money minor={l.amount_minor} currency={l.currency} /> },
                      { key: 'remitted', header: t('finance.remitted'), sortValue: (l) => Number(l.remitted), render: (l) => <StatusBadge status={l.remitted ? 'remitted' : 'pending'} label={l.remitted ? t('finance.remitted') : t('finance.notYet')} /> },
                    ]}
                  />
                )}
              </Card>
              <InvoiceSessions
                pages={d.pages}
                hasMore={detail.hasNextPage}
                loadingMore={detail.isFetchingNextPage}
                moreError={detail.isFetchNextPageError ? detail.error : null}
                onMore={() => void detail.fetchNextPage()}
                onReload={() => void detail.refetch()}
              />
            </>
          );
        }}
      </QueryState>
    </>
  );
}

const PAYMENT_TONE: Record<InvoiceSummary['payment_state'], string> = { nothing_billed: 'inactive', not_paid: 'open', part_paid: 'pending', paid: 'success', overpaid: 'failed' };

/** An invoice's payments in one word (the list and the detail). */
const paymentLabel = (t: T, state: InvoiceSummary['payment_state']): string =>
  ({
    nothing_billed: t('finance.invoices.state.nothing_billed'),
    not_paid: t('finance.invoices.state.not_paid'),
    part_paid: t('finance.invoices.state.part_paid'),
    paid: t('finance.invoices.state.paid'),
    overpaid: t('finance.invoices.state.overpaid'),
  })[state];

/** An invoice's payments in words: "Over-paid GHS 185.00", "Part-paid · GHS 90.00 outstanding", "Nothing billed". */
function PaymentState({ invoice: r }: { invoice: InvoiceSummary }) {
  const t = useT();
  const m = (n: number) => formatMoney(n, r.currency);
  const label =
    r.payment_state === 'overpaid'
      ? t('finance.invoices.overpaidBy', { amount: m(r.overpaid_minor) })
      : r.payment_state === 'part_paid'
        ? t('finance.invoices.partPaid', { amount: m(r.outstanding_minor) })
        : r.payment_state === 'nothing_billed' && r.paid_minor > 0
          ? t('finance.invoices.nothingBilledCollected', { amount: m(r.paid_minor) })
          : paymentLabel(t, r.payment_state);
  return <StatusBadge status={PAYMENT_TONE[r.payment_state]} label={label} />;
}

/** The sentence under an invoice's figures when they need one, with the link to its exception. */
function InvoiceTruth({ invoice: r }: { invoice: InvoiceSummary }) {
  const t = useT();
  const m = (n: number) => formatMoney(n, r.currency);
  const text =
    r.payment_state === 'overpaid'
      ? t('finance.invoices.truthOverpaid', { amount: m(r.overpaid_minor) })
      : r.payment_state === 'part_paid'
        ? t('finance.invoices.truthPartPaid', { outstanding: m(r.outstanding_minor), billed: m(r.billed_minor) })
        : r.payment_state === 'nothing_billed'
          ? r.paid_minor > 0
            ? t('finance.invoices.truthNothingBilledPaid', { amount: m(r.paid_minor) })
            : t('finance.invoices.truthNothingBilled')
          : null;
  if (!text && !r.has_exception) return null;
  return (
    <div className={`bo-alert bo-alert--${r.payment_state === 'overpaid' ? 'error' : 'info'}`} role="note" data-testid="invoice-truth">
      {text}{' '}
      {r.has_exception && <Link to={`${ROUTES.exceptions.path}?invoice=${encodeURIComponent(r.invoice_ref)}`}>{t('finance.invoices.seeException')}</Link>}
    </div>
  );
}
