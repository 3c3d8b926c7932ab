import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useRouter } from '../../router';
import { ROUTES } from '../../routes';
import { useSession } from '../auth/session';
import { useApi } from '../common/api';
import { useErrorText } from '../common/error-text';
import { NoMatch } from '../common/filter-hint';
import { formatDateTime } from '../common/format';
import { Card, DataTable, Empty, InputField, Mono, PageTitle, QueryState, SelectField, ShortId, StatusBadge, type SortState } from '../../../ui/blocks';
import { financeQueries } from '../finance/finance.queries';
import { DeliveryPanel, KIND_LABEL, RecoverCard } from './delivery-panel';
import { ATTEMPTS_PAGE, enableEndpoint, webhookQueries, type EndpointHealth } from './webhooks.queries';
import './webhooks.css';

const EVENT_TYPES = ['checkout.session.completed', 'checkout.session.failed', 'checkout.session.expired'];
const BASE = ROUTES.webhooks.path;

/** The webhooks screen: endpoint health, the delivery log with each attempt, redelivery and recovery. */
export function WebhooksPage() {
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
  const merchantName = (id: string) => merchants.data?.merchants.find((m) => m.id === id)?.name ?? 'Unknown merchant';
  const endpoints = health.data?.endpoints ?? [];
  const endpointOf = (id: string) => endpoints.find((e) => e.endpoint_id === id);
  const reset = <T,>(set: (v: T) => void) => (v: T) => {
    set(v);
    setOffset(0);
  };

  return (
    <div className="bo-page">
      <PageTitle
        title="Webhooks"
        subtitle="Every delivery attempt to the merchants' endpoints, with the request and the answer. Redeliver one event, or recover everything that failed."
        actions={
          isAdmin && merchants.data ? (
            <SelectField label="Merchant" value={merchantId} onChange={(v) => (setMerchantId(v), setEndpointId(''), setOffset(0))} options={[{ value: '', label: 'All merchants' }, ...merchants.data.merchants.map((m) => ({ value: m.id, label: m.name }))]} />
          ) : undefined
        }
      />
      <QueryState query={health} isEmpty={(d) => d.endpoints.length === 0} empty={<Card><Empty title="No webhook endpoints">Add an endpoint to an integration (Administration) to receive events.</Empty></Card>}>
        {(d) => (
          <div className="wh-health" data-testid="endpoint-health">
            {d.endpoints.map((e) => (
              <HealthCard key={e.endpoint_id} e={e} canEnable={isAdmin} merchant={allMerchants ? merchantName(e.merchant_id) : null} />
            ))}
          </div>
        )}
      </QueryState>
      <div>
        <Card title="Delivery log" className="bo-card--flush" testId="delivery-log">
          <div className="bo-filters">
            <SelectField label="Outcome" value={outcome} onChange={reset(setOutcome)} options={[{ value: '', label: 'Any outcome' }, { value: 'succeeded', label: 'Succeeded' }, { value: 'failed', label: 'Failed' }]} />
            <SelectField label="Event" value={eventType} onChange={reset(setEventType)} options={[{ value: '', label: 'Any event' }, ...EVENT_TYPES.map((t) => ({ value: t, label: t }))]} />
            <SelectField
              label="Endpoint"
              value={endpointId}
              onChange={reset(setEndpointId)}
              options={[{ value: '', label: 'Every endpoint' }, ...endpoints.map((e) => ({ value: e.endpoint_id, label: allMerchants ? `${merchantName(e.merchant_id)}: ${e.url}` : e.url }))]}
            />
            <InputField label="Session" value={sessionId} onChange={reset(setSessionId)} placeholder="cs_test_…" />
          </div>
          <QueryState query={attempts} isEmpty={(d) => d.attempts.length === 0} empty={outcome || eventType || sessionId || endpointId ? <NoMatch /> : <Empty title="No delivery attempts">Attempts appear here as soon as an event is sent.</Empty>}>
            {(d) => (
              <>
                <DataTable
                  caption="Webhook delivery attempts"
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
                    { key: 'when', header: 'When', sortKey: 'started_at', nowrap: true, render: (a) => formatDateTime(a.started_at, { seconds: true }) },
                    { key: 'event', header: 'Event', sortKey: 'event_type', render: (a) => <Mono>{a.event_type.replace('checkout.session.', '')}</Mono> },
                    { key: 'session', header: 'Session', render: (a) => <ShortId value={a.session_id} /> },
                    {
                      key: 'url',
                      header: 'Endpoint',
                      render: (a) => (
                        <>
                          {allMerchants && <div className="wh-merchant">{merchantName(endpointOf(a.endpoint_id)?.merchant_id ?? '')}</div>}
                          <span className="wh-url">{a.url}</span>
                        </>
                      ),
                    },
                    { key: 'kind', header: 'Attempt', sortKey: 'attempt_number', nowrap: true, render: (a) => `#${a.attempt_number} · ${KIND_LABEL[a.kind] ?? a.kind}` },
                    { key: 'result', header: 'Result', sortKey: 'status_code', nowrap: true, render: (a) => <StatusBadge status={a.outcome} label={a.status_code ? `${a.status_code}` : a.outcome === 'failed' ? 'error' : 'ok'} /> },
                    { key: 'latency', header: 'Latency', sortKey: 'latency_ms', align: 'right', nowrap: true, render: (a) => `${a.latency_ms} ms` },
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
      {merchant && <div className="wh-merchant">{merchant}</div>}
      <div className="wh-health__head">
        <span className="wh-url" title={e.url}>
          {e.url}
        </span>
        <StatusBadge status={tone} label={e.status === 'disabled' ? 'Disabled' : e.consecutive_failures > 0 ? 'Failing' : 'Healthy'} />
      </div>
      {e.status !== 'disabled' && e.consecutive_failures > 0 && (
        <p className="wh-health__why">
          The last {e.consecutive_failures === 1 ? 'attempt' : `${e.consecutive_failures} attempts`} in a row failed
          {e.last_success_at ? `; last success ${formatDateTime(e.last_success_at)}` : '; no success yet'}. Deliveries keep retrying on their schedule.
        </p>
      )}
      <div className="wh-health__nums">
        <div>
          <div className="bo-stat__label">Success ({e.window_hours} h)</div>
          <div className="bo-stat__value">{rate}</div>
        </div>
        <div>
          <div className="bo-stat__label">Avg latency</div>
          <div className="bo-stat__value">{e.avg_latency_ms === null ? '—' : `${e.avg_latency_ms} ms`}</div>
        </div>
        <div>
          <div className="bo-stat__label">Pending · failed</div>
          <div className="bo-stat__value">
            {e.deliveries.pending} · {e.deliveries.failed}
          </div>
        </div>
      </div>
      {e.last_error && e.consecutive_failures > 0 && <div className="wh-health__error">Last error: {e.last_error}</div>}
      {e.disabled_reason && <div className="wh-health__error">Disabled: {e.disabled_reason}</div>}
      {(e.status === 'disabled' || e.deliveries.held > 0) && (
        <div className="wh-health__held" data-testid="held-deliveries">
          {e.deliveries.held} {e.deliveries.held === 1 ? 'event' : 'events'} held: enabling the endpoint sends {e.deliveries.held === 1 ? 'it' : 'them'}, oldest first.
          {canEnable && e.status === 'disabled' && (
            <button type="button" className="bo-btn bo-btn--secondary bo-btn--sm" disabled={enable.isPending} onClick={() => enable.mutate()}>
              Enable endpoint
            </button>
          )}
          {enable.isError && <span role="alert"> {errorText(enable.error)}</span>}
        </div>
      )}
    </div>
  );
}
