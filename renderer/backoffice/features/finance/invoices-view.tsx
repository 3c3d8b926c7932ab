import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useRouter } from '../../router';
import { ROUTES } from '../../routes';
import { INVOICE_PAYMENT_LABELS } from '../../../../shared/labels';
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
        <InputField label="Invoice ref" value={q} onChange={(v) => (setQ(v), restart())} placeholder="Contains…" />
        <SelectField
          label="Remitted"
          value={remitted}
          onChange={(v) => (setRemitted(v), restart())}
          options={[
            { value: '', label: 'All invoices' },
            { value: 'true', label: 'Fully paid' },
            { value: 'false', label: 'Not fully paid' },
          ]}
        />
      </div>
      <QueryState query={invoices} isEmpty={(d) => d.total === 0} empty={q || remitted ? <NoMatch /> : <Empty title="No invoices">Invoices appear when the merchant records invoice lines or creates a session.</Empty>}>
        {(d) => (
          <>
            <DataTable
              caption="Invoices"
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
                  header: 'Invoice',
                  sortKey: 'invoice_ref',
                  render: (r) => <InvoiceRefCell invoiceRef={r.invoice_ref} mode={r.mode} />,
                },
                { key: 'lines', header: 'Lines', sortKey: 'line_count', align: 'right', render: (r) => r.line_count },
                { key: 'billed', header: 'Billed', sortKey: 'billed_minor', align: 'right', render: (r) => <Money minor={r.billed_minor} currency={r.currency} strong /> },
                { key: 'paid', header: 'Paid', align: 'right', render: (r) => <Money minor={r.paid_minor} currency={r.currency} /> },
                { key: 'outstanding', header: 'Outstanding', align: 'right', render: (r) => <Money minor={r.outstanding_minor} currency={r.currency} /> },
                { key: 'remitted', header: 'Payment', render: (r) => <PaymentState invoice={r} /> },
                { key: 'session', header: 'Latest session', render: (r) => (r.latest_session_status ? <StatusBadge status={r.latest_session_status} kind="session" /> : <span className="bo-muted">none</span>) },
                { key: 'updated', header: 'Updated', sortKey: 'updated_at', nowrap: true, render: (r) => formatDateTime(r.updated_at) },
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
  const api = useApi();
  const { navigate } = useRouter();
  const detail = useInfiniteQuery(financeQueries.invoice(api, merchantId, invoiceRef));
  // A failed "Show more" keeps the pages already read on screen and says so next to the button.
  const state = { ...detail, isError: detail.isError && detail.data === undefined };
  return (
    <>
      <button type="button" className="bo-btn bo-btn--secondary bo-btn--sm bo-back" onClick={() => navigate(`${BASE}/invoices`)}>
        ← All invoices
      </button>
      <QueryState query={state}>
        {(d) => {
          // The freshest page carries the freshest aggregate: totals are the server's, never a sum of the rows loaded.
          const latest = d.pages[d.pages.length - 1]!;
          return (
            <>
              <div className="bo-stats">
                <Stat label="Invoice" value={latest.invoice.invoice_ref} />
                <Stat label="Billed" value={latest.invoice.line_count === 0 ? 'Nothing billed' : formatMoney(latest.invoice.billed_minor, latest.invoice.currency)} />
                <Stat label="Paid" value={formatMoney(latest.invoice.paid_minor, latest.invoice.currency)} />
                {latest.invoice.payment_state === 'overpaid' ? (
                  <Stat label="Over-paid" value={formatMoney(latest.invoice.overpaid_minor, latest.invoice.currency)} />
                ) : latest.invoice.line_count > 0 ? (
                  <Stat label="Outstanding" value={formatMoney(latest.invoice.outstanding_minor, latest.invoice.currency)} />
                ) : null}
                <Stat label="State" value={INVOICE_PAYMENT_LABELS[latest.invoice.payment_state] + (latest.invoice.payment_state === 'paid' && latest.invoice.remitted_at ? ` ${formatDateTime(latest.invoice.remitted_at)}` : '')} />
              </div>
              <InvoiceTruth invoice={latest.invoice} />
              <Card title="Lines" className="bo-card--flush">
                {latest.lines.length === 0 ? (
                  <Empty title="No lines recorded" />
                ) : (
                  <DataTable
                    rows={latest.lines}
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

/** An invoice's payments in words: "Over-paid GHS 185.00", "Part-paid · GHS 90.00 outstanding", "Nothing billed". */
function PaymentState({ invoice: r }: { invoice: InvoiceSummary }) {
  const m = (n: number) => formatMoney(n, r.currency);
  const label =
    r.payment_state === 'overpaid'
      ? `Over-paid ${m(r.overpaid_minor)}`
      : r.payment_state === 'part_paid'
        ? `Part-paid · ${m(r.outstanding_minor)} outstanding`
        : r.payment_state === 'nothing_billed' && r.paid_minor > 0
          ? `Nothing billed · ${m(r.paid_minor)} collected`
          : INVOICE_PAYMENT_LABELS[r.payment_state];
  return <StatusBadge status={PAYMENT_TONE[r.payment_state]} label={label} />;
}

/** The sentence under an invoice's figures when they need one, with the link to its exception. */
function InvoiceTruth({ invoice: r }: { invoice: InvoiceSummary }) {
  const m = (n: number) => formatMoney(n, r.currency);
  const text =
    r.payment_state === 'overpaid'
      ? `This invoice collected ${m(r.overpaid_minor)} more than it billed.`
      : r.payment_state === 'part_paid'
        ? `${m(r.outstanding_minor)} of ${m(r.billed_minor)} is still outstanding.`
        : r.payment_state === 'nothing_billed'
          ? r.paid_minor > 0
            ? `No lines were recorded for this invoice: ${m(r.paid_minor)} was collected against nothing billed.`
            : 'No lines were recorded for this invoice.'
          : null;
  if (!text && !r.has_exception) return null;
  return (
    <div className={`bo-alert bo-alert--${r.payment_state === 'overpaid' ? 'error' : 'info'}`} role="note" data-testid="invoice-truth">
      {text}{' '}
      {r.has_exception && <Link to={`${ROUTES.exceptions.path}?invoice=${encodeURIComponent(r.invoice_ref)}`}>See its exception</Link>}
    </div>
  );
}
