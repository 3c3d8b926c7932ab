import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useT } from '../../../ui/i18n';
import { useRouter } from '../../router';
import { ROUTES } from '../../routes';
import { useSession } from '../auth/session';
import { useApi } from '../common/api';
import { labelsWith } from '../common/labels';
import { useErrorText } from '../common/error-text';
import { NoMatch } from '../common/filter-hint';
import { formatDateTime } from '../common/format';
import { Card, DataTable, Empty, InputField, PageTitle, QueryState, SelectField, ShortId, StatusBadge, type SortState } from '../../../ui/blocks';
import { financeQueries } from '../finance/finance.queries';
import { DeliveryPanel, kindLabel, RecoverCard } from './delivery-panel';
import { ATTEMPTS_PAGE, enableEndpoint, webhookQueries, type EndpointHealth } from './webhooks.queries';
import './webhooks.css';

const EVENT_TYPES = ['checkout.session.completed', 'checkout.session.failed', 'checkout.session.expired'];
const BASE = ROUTES.webhooks.path;

/** The webhooks screen: endpoint health, the delivery log with each attempt, redelivery and recovery. */
export function WebhooksPage() {
  const t = useT();
  const api = useApi();
  const { session } = useSession();
  const { path, navigate } = useRouter();
  const deliveryId = path.startsWith(`${BASE}/deliveries/`) ? decodeURIComponent(path.slice(`${BASE}/deliveries/`.length)) : null;
  const isAdmin = session?.user.role === 'admin';
  const merchants = useQuery({ ...financeQueries.merchants(api), enabled: isAdmin });
  const [merchantId, setMerchantId] = useState('');
  const scope = isAdmin && merchantId ? merchantId : undefined;
  const [outcome, setOutcome] = useState('');
  const [eventType, setEventType] = useState('');
  const [sessionId, setSessionId] = useState('');
  const [endpointId, setEndpointId] = useState('');
  const [sort, setSort] = useState<SortState>({ key: 'started_at', dir: 'desc' });
  const [offset, setOffset] = useState(0);
  const filters = { outcome, event_type: eventType, session_id: sessionId.trim(), endpoint_id: endpointId, sort: sort.key, dir: sort.dir, offset };
  const attempts = useQuery(webhookQueries.attempts(api, scope, filters));
  const health = useQuery(webhookQueries.health(api, scope));
  // With "All merchants", every card and row says whose endpoint it is.
  const allMerchants = isAdmin && !merchantId;
  const merchantName = (id: string) => merchants.data?.merchants.find((m) => m.id === id)?.name ?? t('webhooks.unknownMerchant');
  const endpoints = health.data?.endpoints ?? [];
  const endpointOf = (id: string) => endpoints.find((e) => e.endpoint_id === id);
  const reset = <T,>(set: (v: T) => void) => (v: T) => {
    set(v);
    setOffset(0);
  };

  return (
    <div className="bo-page">
      <PageTitle
        title={t('webhooks.title')}
        subtitle={t('webhooks.subtitle')}
        actions={
          isAdmin && merchants.data ? (
            <SelectField label={t('webhooks.merchant')} value={merchantId} onChange={(v) => (setMerchantId(v), setEndpointId(''), setOffset(0))} options={[{ value: '', label: t('webhooks.allMerchants') }, ...merchants.data.merchants.map((m) => ({ value: m.id, label: m.name, data: true }))]} />
          ) : undefined
        }
      />
      <QueryState query={health} isEmpty={(d) => d.endpoints.length === 0} empty={<Card><Empty title={t('webhooks.noEndpoints')}>{t('webhooks.noEndpointsHint')}</Empty></Card>}>
        {(d) => (
          <div className="wh-health" data-testid="endpoint-health">
            {d.endpoints.map((e) => (
              <HealthCard key={e.endpoint_id} e={e} canEnable={isAdmin} merchant={allMerchants ? merchantName(e.merchant_id) : null} />
            ))}
          </div>
        )}
      </QueryState>
      <div>
        <Card title={t('webhooks.log')} className="bo-card--flush" testId="delivery-log">
          <div className="bo-filters">
            <SelectField label={t('webhooks.outcome')} value={outcome} onChange={reset(setOutcome)} options={[{ value: '', label: t('webhooks.anyOutcome') }, { value: 'succeeded', label: t('webhooks.succeeded') }, { value: 'failed', label: t('webhooks.failed') }]} />
            <SelectField label={t('webhooks.event')} value={eventType} onChange={reset(setEventType)} options={[{ value: '', label: t('webhooks.anyEvent') }, ...EVENT_TYPES.map((e) => ({ value: e, label: labelsWith(t).event(e) }))]} />
            <SelectField
              label={t('webhooks.endpoint')}
              value={endpointId}
              onChange={reset(setEndpointId)}
              options={[{ value: '', label: t('webhooks.everyEndpoint') }, ...endpoints.map((e) => ({ value: e.endpoint_id, label: allMerchants ? `${merchantName(e.merchant_id)}: ${e.url}` : e.url, data: true }))]}
            />
            <InputField label={t('webhooks.session')} value={sessionId} onChange={reset(setSessionId)} placeholder={t('webhooks.sessionPlaceholder')} />
          </div>
          <QueryState query={attempts} isEmpty={(d) => d.attempts.length === 0} empty={outcome || eventType || sessionId || endpointId ? <NoMatch /> : <Empty title={t('webhooks.noAttempts')}>{t('webhooks.noAttemptsHint')}</Empty>}>
            {(d) => (
              <>
                <DataTable
                  caption={t('webhooks.caption')}
                  testId="delivery-log-table"
                  rows={d.attempts}
                  rowKey={(a) => a.id}
                  sort={sort}
                  onSort={reset(setSort)}
                  page={{ total: d.total, capped: d.total_capped, rows: d.attempts.length, limit: ATTEMPTS_PAGE, offset, onChange: setOffset }}
                  onRowClick={(a) => {
                    navigate(`${BASE}/deliveries/${encodeURIComponent(a.delivery_id)}`);
                    requestAnimationFrame(() => document.querySelector('[data-testid="delivery-detail"]')?.scrollIntoView({ block: 'start' }));
                  }}
                  columns={[
                    { key: 'when', header: t('webhooks.when'), sortKey: 'started_at', nowrap: true, render: (a) => <time dateTime={a.started_at}>{formatDateTime(a.started_at, { seconds: true })}</time> },
                    { key: 'event', header: t('webhooks.event'), sortKey: 'event_type', render: (a) => labelsWith(t).event(a.event_type) },
                    { key: 'session', header: t('webhooks.session'), render: (a) => <ShortId value={a.session_id} /> },
                    {
                      key: 'url',
                      header: t('webhooks.endpoint'),
                      render: (a) => (
                        <>
                          {allMerchants && <div className="wh-merchant" translate="no">{merchantName(endpointOf(a.endpoint_id)?.merchant_id ?? '')}</div>}
                          <span className="wh-url" translate="no">{a.url}</span>
                        </>
                      ),
                    },
                    { key: 'kind', header: t('webhooks.attempt'), sortKey: 'attempt_number', nowrap: true, render: (a) => t('webhooks.attemptKind', { number: a.attempt_number, kind: kindLabel(t, a.kind) }) },
                    { key: 'result', header: t('webhooks.result'), sortKey: 'status_code', nowrap: true, render: (a) => <StatusBadge status={a.outcome} label={a.status_code ? `${a.status_code}` : a.outcome === 'failed' ? t('webhooks.resultError') : t('webhooks.resultOk')} /> },
                    { key: 'latency', header: t('webhooks.latency'), sortKey: 'latency_ms', align: 'right', nowrap: true, render: (a) => t('webhooks.ms', { ms: a.latency_ms }) },
                  ]}
                />
              </>
            )}
          </QueryState>
        </Card>
        {deliveryId && <DeliveryPanel deliveryId={deliveryId} onClose={() => navigate(BASE)} />}
      </div>
      <RecoverCard merchantId={scope} />
    </div>
  );
}

function HealthCard({ e, canEnable, merchant }: { e: EndpointHealth; canEnable: boolean; merchant: string | null }) {
  const errorText = useErrorText();
  const t = useT();
  const api = useApi();
  const queryClient = useQueryClient();
  const enable = useMutation({
    mutationFn: () => enableEndpoint(api, e.endpoint_id),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ['webhooks', api.userId] }),
  });
  const rate = e.success_rate === null ? '—' : `${Math.round(e.success_rate * 100)}%`;
  const tone = e.status === 'disabled' ? 'disabled' : e.consecutive_failures > 0 ? 'failed' : 'succeeded';
  return (
    <div className="bo-stat wh-health__card">
      {merchant && <div className="wh-merchant" translate="no">{merchant}</div>}
      <div className="wh-health__head">
        <span className="wh-url" title={e.url} translate="no">
          {e.url}
        </span>
        <StatusBadge status={tone} label={e.status === 'disabled' ? t('webhooks.health.disabled') : e.consecutive_failures > 0 ? t('webhooks.health.failing') : t('webhooks.health.healthy')} />
      </div>
      {e.status !== 'disabled' && e.consecutive_failures > 0 && (
        <p className="wh-health__why">
          {e.last_success_at
            ? t('webhooks.health.whySince', { count: e.consecutive_failures, date: <time dateTime={e.last_success_at}>{formatDateTime(e.last_success_at)}</time> })
            : t('webhooks.health.whyNever', { count: e.consecutive_failures })}
        </p>
      )}
      <div className="wh-health__nums">
        <div>
          <div className="bo-stat__label">{t('webhooks.health.success', { hours: e.window_hours })}</div>
          <div className="bo-stat__value">{rate}</div>
        </div>
        <div>
          <div className="bo-stat__label">{t('webhooks.health.latency')}</div>
          <div className="bo-stat__value">{e.avg_latency_ms === null ? '—' : t('webhooks.ms', { ms: e.avg_latency_ms })}</div>
        </div>
        <div>
          <div className="bo-stat__label">{t('webhooks.health.pendingFailed')}</div>
          <div className="bo-stat__value">
            {e.deliveries.pending} · {e.deliveries.failed}
          </div>
        </div>
      </div>
      {e.last_error && e.consecutive_failures > 0 && <div className="wh-health__error">{t('webhooks.health.lastError', { error: <span translate="no">{e.last_error}</span> })}</div>}
      {e.disabled_reason && <div className="wh-health__error">{t('webhooks.health.disabledBecause', { reason: <span translate="no">{e.disabled_reason}</span> })}</div>}
      {(e.status === 'disabled' || e.deliveries.held > 0) && (
        <div className="wh-health__held" data-testid="held-deliveries">
          {t('webhooks.health.held', { count: e.deliveries.held })}
          {canEnable && e.status === 'disabled' && (
            <button type="button" className="bo-btn bo-btn--secondary bo-btn--sm" disabled={enable.isPending} onClick={() => enable.mutate()}>
              {t('webhooks.health.enable')}
            </button>
          )}
          {enable.isError && <span role="alert"> {errorText(enable.error)}</span>}
        </div>
      )}
    </div>
  );
}
