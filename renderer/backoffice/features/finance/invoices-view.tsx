import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useRouter } from '../../router';
import { useApi } from '../common/api';
import { formatDateTime, formatMoney, railLabel } from '../common/format';
import { Card, DataTable, Empty, InputField, Money, Mono, Pagination, QueryState, SelectField, ShortId, StatusBadge, type SortState } from '../common/ui';
import { NoMatch } from '../common/filter-hint';
import { FINANCE_BASE as BASE, Stat } from './finance-base';
import { financeQueries } from './finance.queries';

export function InvoicesView({ merchantId }: { merchantId: string | undefined }) {
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

export function InvoiceDetailView({ merchantId, invoiceRef }: { merchantId: string | undefined; invoiceRef: string }) {
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

