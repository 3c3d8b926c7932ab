import { useQuery } from '@tanstack/react-query';
import { useCallback, useMemo, useRef, useState } from 'react';
import { RAILS } from '../../../../shared/schemas/common';
import type { Overview } from '../../../../shared/schemas/overview';
import { railLabel } from '../../../../shared/labels';
import { Link } from '../../router';
import { ROUTES } from '../../routes';
import { useApi } from '../common/api';
import { currencyDigits, formatMoney } from '../common/format';
import { Card, DataTable, InputField, QueryState, SelectField } from '../../../ui/blocks';
import { FINANCE_BASE, Stat } from '../finance/finance-base';
import { StackedBarChart } from './bar-chart';
import { overviewQuery, type OverviewFilters } from './overview.queries';

const DAY_MS = 86_400_000;
const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const STATUS_SERIES = [
  { key: 'success', label: 'Paid' },
  { key: 'failed', label: 'Closed, not paid' },
  { key: 'expired', label: 'Expired' },
] as const;

/** The money of a date range at a glance: totals, two charts (each with its table) and the open work. */
export function FinanceOverview({ merchantId }: { merchantId: string | undefined }) {
  const api = useApi();
  const [f, setF] = useState<OverviewFilters>(() => ({ from: utcDay(Date.now() - 29 * DAY_MS), to: utcDay(Date.now()), currency: undefined, mode: 'all' }));
  const valid = /^\d{4}-\d{2}-\d{2}$/.test(f.from) && /^\d{4}-\d{2}-\d{2}$/.test(f.to) && f.from <= f.to;
  // A half-typed range keeps the last one asked for on screen.
  const lastValid = useRef(f);
  if (valid) lastValid.current = f;
  const q = useQuery(overviewQuery(api, merchantId, lastValid.current));
  return (
    <div data-testid="finance-overview">
      <div className="bo-overview__filters" role="group" aria-label="Overview filters">
        <InputField label="From (UTC)" type="date" value={f.from} onChange={(v) => setF({ ...f, from: v })} error={valid ? undefined : 'Pick a From date on or before To'} />
        <InputField label="To (UTC)" type="date" value={f.to} onChange={(v) => setF({ ...f, to: v })} />
        <SelectField
          label="Currency"
          value={f.currency ?? q.data?.currency ?? ''}
          onChange={(v) => setF({ ...f, currency: v })}
          options={(q.data?.currencies ?? [f.currency ?? 'GHS']).map((c) => ({ value: c, label: c }))}
        />
        <SelectField
          label="Mode"
          value={f.mode}
          onChange={(v) => setF({ ...f, mode: v as OverviewFilters['mode'] })}
          options={[
            { value: 'all', label: 'Live and test' },
            { value: 'live', label: 'Live only' },
            { value: 'test', label: 'Test only' },
          ]}
        />
      </div>
      <QueryState query={q}>{(o) => <OverviewBody o={o} />}</QueryState>
    </div>
  );
}

function OverviewBody({ o }: { o: Overview }) {
  const money = useCallback((minor: number) => formatMoney(minor, o.currency), [o.currency]);
  const days = useMemo(() => o.days.map((d) => d.day), [o.days]);
  const railSeries = useMemo(() => RAILS.map((r) => ({ label: railLabel(r), values: o.days.map((d) => d.collected_minor[r]) })), [o.days]);
  const statusSeries = useMemo(() => STATUS_SERIES.map((s) => ({ label: s.label, values: o.days.map((d) => d[s.key]) })), [o.days]);
  const activeDays = o.days.filter((d) => d.created + d.success + d.failed + d.expired > 0);
  return (
    <>
      <div className="bo-stats" data-testid="overview-totals">
        <Stat label="Gross collected" value={money(o.totals.gross_minor)} />
        <Stat label="Fees paid by payers" value={money(o.totals.payer_fee_minor)} />
        <Stat label="Fees paid by the merchant" value={money(o.totals.merchant_fee_minor)} />
        <Stat label="Net to the merchant" value={money(o.totals.net_minor)} />
      </div>
      <div className="bo-stats" data-testid="overview-counts">
        <Stat label="Payments" value={String(o.counts.success)} />
        <Stat label="Sessions created" value={String(o.counts.created)} />
        <Stat label="Closed, not paid" value={String(o.counts.failed)} />
        <Stat label="Expired" value={String(o.counts.expired)} />
      </div>
      <Card title="Needs attention">
        <div className="bo-overview__links">
          <Link to={ROUTES.exceptions.path}>
            {o.exceptions_open} open exception{o.exceptions_open === 1 ? '' : 's'}
          </Link>
          <Link to={ROUTES.webhooks.path}>
            {o.held_deliveries} held webhook deliver{o.held_deliveries === 1 ? 'y' : 'ies'}
          </Link>
          <Link to={FINANCE_BASE}>All sessions</Link>
        </div>
      </Card>
      <div className="bo-overview__grid">
        <Card title={`Collections per day by payment method (${o.currency})`}>
          <StackedBarChart days={days} series={railSeries} unit={10 ** currencyDigits(o.currency)} label={`Collections per day by payment method, ${o.from} to ${o.to}`} />
          <details className="bo-chart__table">
            <summary>Table view</summary>
            <DataTable
              caption="Collections per day by payment method"
              rows={activeDays}
              rowKey={(d) => d.day}
              pageSize={31}
              columns={[
                { key: 'day', header: 'Day', render: (d) => d.day, nowrap: true },
                ...RAILS.map((r) => ({ key: r, header: railLabel(r), align: 'right' as const, nowrap: true, render: (d: Overview['days'][number]) => money(d.collected_minor[r]) })),
              ]}
            />
          </details>
        </Card>
        <Card title="How sessions ended, per day">
          <StackedBarChart days={days} series={statusSeries} unit={1} label={`Sessions paid, closed and expired per day, ${o.from} to ${o.to}`} />
          <details className="bo-chart__table">
            <summary>Table view</summary>
            <DataTable
              caption="Sessions per day by how they ended"
              rows={activeDays}
              rowKey={(d) => d.day}
              pageSize={31}
              columns={[
                { key: 'day', header: 'Day', render: (d) => d.day, nowrap: true },
                { key: 'created', header: 'Created', align: 'right', render: (d) => d.created },
                ...STATUS_SERIES.map((s) => ({ key: s.key, header: s.label, align: 'right' as const, render: (d: Overview['days'][number]) => d[s.key] })),
              ]}
            />
          </details>
        </Card>
      </div>
      <Card title="By payment method">
        <DataTable
          caption="Totals by payment method"
          testId="overview-rails"
          rows={o.rails}
          rowKey={(r) => r.rail}
          columns={[
            { key: 'rail', header: 'Payment method', render: (r) => railLabel(r.rail) },
            { key: 'payments', header: 'Payments', align: 'right', render: (r) => r.payments },
            { key: 'gross', header: 'Gross', align: 'right', nowrap: true, render: (r) => money(r.gross_minor) },
            { key: 'payer_fee', header: 'Payer fees', align: 'right', nowrap: true, render: (r) => money(r.payer_fee_minor) },
            { key: 'merchant_fee', header: 'Merchant fees', align: 'right', nowrap: true, render: (r) => money(r.merchant_fee_minor) },
            { key: 'net', header: 'Net', align: 'right', nowrap: true, render: (r) => money(r.net_minor) },
          ]}
        />
      </Card>
    </>
  );
}
