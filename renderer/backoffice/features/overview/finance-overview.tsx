import { useQuery } from '@tanstack/react-query';
import { useCallback, useMemo, useRef, useState } from 'react';
import { RAILS } from '../../../../shared/schemas/common';
import type { Overview } from '../../../../shared/schemas/overview';
import { Link } from '../../router';
import { ROUTES } from '../../routes';
import { useApi } from '../common/api';
import { currencyDigits, formatMoney } from '../common/format';
import { Card, DataTable, InputField, QueryState, SelectField } from '../../../ui/blocks';
import { FINANCE_BASE, Stat } from '../finance/finance-base';
import { StackedBarChart } from './bar-chart';
import { overviewQuery, type OverviewFilters } from './overview.queries';
import { currentLocale, useT, type T } from '../../../ui/i18n';
import { useLabels } from '../common/labels';

const DAY_MS = 86_400_000;
const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const STATUS_KEYS = ['success', 'failed', 'expired'] as const;
const statusSeries = (t: T) => [
  { key: STATUS_KEYS[0], label: t('overview.status.success') },
  { key: STATUS_KEYS[1], label: t('overview.status.failed') },
  { key: STATUS_KEYS[2], label: t('overview.status.expired') },
];

/** A UTC day (`2026-11-29`) as the staff member reads it, in a <time>. */
function Day({ day }: { day: string }) {
  const text = new Intl.DateTimeFormat(currentLocale(), { dateStyle: 'medium', timeZone: 'UTC' }).format(new Date(`${day}T12:00:00Z`));
  return <time dateTime={day}>{text}</time>;
}
const dayText = (day: string) => new Intl.DateTimeFormat(currentLocale(), { dateStyle: 'long', timeZone: 'UTC' }).format(new Date(`${day}T12:00:00Z`));

/** The money of a date range at a glance: totals, two charts (each with its table) and the open work. */
export function FinanceOverview({ merchantId }: { merchantId: string | undefined }) {
  const t = useT();
  const api = useApi();
  const [f, setF] = useState<OverviewFilters>(() => ({ from: utcDay(Date.now() - 29 * DAY_MS), to: utcDay(Date.now()), currency: undefined, mode: 'all' }));
  const valid = /^\d{4}-\d{2}-\d{2}$/.test(f.from) && /^\d{4}-\d{2}-\d{2}$/.test(f.to) && f.from <= f.to;
  // A half-typed range keeps the last one asked for on screen.
  const lastValid = useRef(f);
  if (valid) lastValid.current = f;
  const q = useQuery(overviewQuery(api, merchantId, lastValid.current));
  return (
    <div data-testid="finance-overview">
      <div className="bo-overview__filters" role="group" aria-label={t('overview.filters')}>
        <InputField label={t('overview.from')} type="date" value={f.from} onChange={(v) => setF({ ...f, from: v })} error={valid ? undefined : t('overview.badRange')} />
        <InputField label={t('overview.to')} type="date" value={f.to} onChange={(v) => setF({ ...f, to: v })} />
        <SelectField
          label={t('overview.currency')}
          value={f.currency ?? q.data?.currency ?? ''}
          onChange={(v) => setF({ ...f, currency: v })}
          options={(q.data?.currencies ?? [f.currency ?? 'GHS']).map((c) => ({ value: c, label: c }))}
        />
        <SelectField
          label={t('overview.mode')}
          value={f.mode}
          onChange={(v) => setF({ ...f, mode: v as OverviewFilters['mode'] })}
          options={[
            { value: 'all', label: t('overview.mode.all') },
            { value: 'live', label: t('overview.mode.live') },
            { value: 'test', label: t('overview.mode.test') },
          ]}
        />
      </div>
      <QueryState query={q}>{(o) => <OverviewBody o={o} />}</QueryState>
    </div>
  );
}

function OverviewBody({ o }: { o: Overview }) {
  const t = useT();
  const labels = useLabels();
  const money = useCallback((minor: number) => formatMoney(minor, o.currency), [o.currency]);
  const days = useMemo(() => o.days.map((d) => d.day), [o.days]);
  const railSeries = useMemo(() => RAILS.map((r) => ({ label: labels.rail(r), values: o.days.map((d) => d.collected_minor[r]) })), [o.days, labels]);
  const STATUS_SERIES = useMemo(() => statusSeries(t), [t]);
  const endedSeries = useMemo(() => STATUS_SERIES.map((s) => ({ label: s.label, values: o.days.map((d) => d[s.key]) })), [o.days, STATUS_SERIES]);
  const range = { from: dayText(o.from), to: dayText(o.to) };
  const activeDays = o.days.filter((d) => d.created + d.success + d.failed + d.expired > 0);
  return (
    <>
      <div className="bo-stats" data-testid="overview-totals">
        <Stat label={t('overview.gross')} value={money(o.totals.gross_minor)} />
        <Stat label={t('overview.payerFees')} value={money(o.totals.payer_fee_minor)} />
        <Stat label={t('overview.merchantFees')} value={money(o.totals.merchant_fee_minor)} />
        <Stat label={t('overview.net')} value={money(o.totals.net_minor)} />
      </div>
      <div className="bo-stats" data-testid="overview-counts">
        <Stat label={t('overview.payments')} value={String(o.counts.success)} />
        <Stat label={t('overview.created')} value={String(o.counts.created)} />
        <Stat label={t('overview.status.failed')} value={String(o.counts.failed)} />
        <Stat label={t('overview.status.expired')} value={String(o.counts.expired)} />
      </div>
      <Card title={t('overview.attention')}>
        <div className="bo-overview__links">
          <Link to={ROUTES.exceptions.path}>
            {t('overview.openExceptions', { count: o.exceptions_open })}
          </Link>
          <Link to={ROUTES.webhooks.path}>
            {t('overview.heldDeliveries', { count: o.held_deliveries })}
          </Link>
          <Link to={FINANCE_BASE}>{t('overview.allSessions')}</Link>
        </div>
      </Card>
      <div className="bo-overview__grid">
        <Card title={t('overview.collectionsTitle', { currency: o.currency })}>
          <StackedBarChart days={days} series={railSeries} unit={10 ** currencyDigits(o.currency)} label={t('overview.collectionsChart', range)} />
          <details className="bo-chart__table">
            <summary>{t('overview.tableView')}</summary>
            <DataTable
              caption={t('overview.collectionsTable')}
              rows={activeDays}
              rowKey={(d) => d.day}
              pageSize={31}
              columns={[
                { key: 'day', header: t('overview.day'), render: (d) => <Day day={d.day} />, nowrap: true },
                ...RAILS.map((r) => ({ key: r, header: labels.rail(r), align: 'right' as const, nowrap: true, render: (d: Overview['days'][number]) => money(d.collected_minor[r]) })),
              ]}
            />
          </details>
        </Card>
        <Card title={t('overview.endedTitle')}>
          <StackedBarChart days={days} series={endedSeries} unit={1} label={t('overview.endedChart', range)} />
          <details className="bo-chart__table">
            <summary>{t('overview.tableView')}</summary>
            <DataTable
              caption={t('overview.endedTable')}
              rows={activeDays}
              rowKey={(d) => d.day}
              pageSize={31}
              columns={[
                { key: 'day', header: t('overview.day'), render: (d) => <Day day={d.day} />, nowrap: true },
                { key: 'created', header: t('overview.createdColumn'), align: 'right', render: (d) => d.created },
                ...STATUS_SERIES.map((s) => ({ key: s.key, header: s.label, align: 'right' as const, render: (d: Overview['days'][number]) => d[s.key] })),
              ]}
            />
          </details>
        </Card>
      </div>
      <Card title={t('overview.byRail')}>
        <DataTable
          caption={t('overview.byRailTable')}
          testId="overview-rails"
          rows={o.rails}
          rowKey={(r) => r.rail}
          columns={[
            { key: 'rail', header: t('overview.rail'), render: (r) => labels.rail(r.rail) },
            { key: 'payments', header: t('overview.payments'), align: 'right', render: (r) => r.payments },
            { key: 'gross', header: t('overview.grossColumn'), align: 'right', nowrap: true, render: (r) => money(r.gross_minor) },
            { key: 'payer_fee', header: t('overview.payerFeesColumn'), align: 'right', nowrap: true, render: (r) => money(r.payer_fee_minor) },
            { key: 'merchant_fee', header: t('overview.merchantFeesColumn'), align: 'right', nowrap: true, render: (r) => money(r.merchant_fee_minor) },
            { key: 'net', header: t('overview.netColumn'), align: 'right', nowrap: true, render: (r) => money(r.net_minor) },
          ]}
        />
      </Card>
    </>
  );
}
