import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useSession } from '../auth/session';
import { errorMessage, useApi } from '../common/api';
import { dateInputValue, dayStartIso, formatDateTime, formatRelative } from '../common/format';
import { Card, DataTable, DetailList, Empty, InputField, Mono, PageTitle, QueryState, SelectField, ShortId, StatusBadge, type SortState } from '../common/ui';
import { financeQueries } from '../finance/finance.queries';
import { ATTEMPTS_PAGE, enableEndpoint, recover, redeliver, webhookQueries, type EndpointHealth, type WebhookAttempt } from './webhooks.queries';
import './webhooks.css';

const EVENT_TYPES = ['checkout.session.completed', 'checkout.session.failed', 'checkout.session.expired'];
const KIND_LABEL: Record<string, string> = { initial: 'Initial', automatic_retry: 'Retry', manual: 'Manual' };

/** The webhooks screen: endpoint health, the delivery log with each attempt, redelivery and recovery. */
export function WebhooksPage() {
  const api = useApi();
  const { session } = useSession();
  const isAdmin = session?.user.role === 'admin';
  const merchants = useQuery({ ...financeQueries.merchants(api), enabled: isAdmin });
  const [merchantId, setMerchantId] = useState('');
  const scope = isAdmin && merchantId ? merchantId : undefined;
  const [outcome, setOutcome] = useState('');
  const [eventType, setEventType] = useState('');
  const [sessionId, setSessionId] = useState('');
  const [sort, setSort] = useState<SortState>({ key: 'started_at', dir: 'desc' });
  const [offset, setOffset] = useState(0);
  const [selected, setSelected] = useState<WebhookAttempt | null>(null);
  const filters = { outcome, event_type: eventType, session_id: sessionId.trim(), sort: sort.key, dir: sort.dir, offset };
  const attempts = useQuery(webhookQueries.attempts(api, scope, filters));
  const health = useQuery(webhookQueries.health(api, scope));
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
            <SelectField label="Merchant" value={merchantId} onChange={reset(setMerchantId)} options={[{ value: '', label: 'All merchants' }, ...merchants.data.merchants.map((m) => ({ value: m.id, label: m.name }))]} />
          ) : undefined
        }
      />
      <QueryState query={health} isEmpty={(d) => d.endpoints.length === 0} empty={<Card><Empty title="No webhook endpoints">Add an endpoint to an integration (Administration) to receive events.</Empty></Card>}>
        {(d) => (
          <div className="wh-health" data-testid="endpoint-health">
            {d.endpoints.map((e) => (
              <HealthCard key={e.endpoint_id} e={e} canEnable={isAdmin} />
            ))}
          </div>
        )}
      </QueryState>
      <div>
        <Card title="Delivery log" className="bo-card--flush" testId="delivery-log">
          <div className="bo-filters">
            <SelectField label="Outcome" value={outcome} onChange={reset(setOutcome)} options={[{ value: '', label: 'Any outcome' }, { value: 'succeeded', label: 'Succeeded' }, { value: 'failed', label: 'Failed' }]} />
            <SelectField label="Event" value={eventType} onChange={reset(setEventType)} options={[{ value: '', label: 'Any event' }, ...EVENT_TYPES.map((t) => ({ value: t, label: t }))]} />
            <InputField label="Session" value={sessionId} onChange={reset(setSessionId)} placeholder="cs_test_…" />
          </div>
          <QueryState query={attempts} isEmpty={(d) => d.attempts.length === 0} empty={<Empty title="No delivery attempts">{outcome || eventType || sessionId ? 'Nothing matches these filters.' : 'Attempts appear here as soon as an event is sent.'}</Empty>}>
            {(d) => (
              <>
                <DataTable
                  caption="Webhook delivery attempts"
                  testId="delivery-log-table"
                  rows={d.attempts}
                  rowKey={(a) => a.id}
                  sort={sort}
                  onSort={reset(setSort)}
                  page={{ total: d.total, limit: ATTEMPTS_PAGE, offset, onChange: setOffset }}
                  onRowClick={(a) => {
                    setSelected(a);
                    requestAnimationFrame(() => document.getElementById('delivery-detail')?.scrollIntoView({ behavior: 'smooth', block: 'start' }));
                  }}
                  columns={[
                    { key: 'when', header: 'When', sortKey: 'started_at', nowrap: true, render: (a) => formatDateTime(a.started_at, { seconds: true }) },
                    { key: 'event', header: 'Event', sortKey: 'event_type', render: (a) => <Mono>{a.event_type.replace('checkout.session.', '')}</Mono> },
                    { key: 'session', header: 'Session', render: (a) => <ShortId value={a.session_id} /> },
                    { key: 'url', header: 'Endpoint', render: (a) => <span className="wh-url">{a.url}</span> },
                    { key: 'kind', header: 'Attempt', sortKey: 'attempt_number', nowrap: true, render: (a) => `#${a.attempt_number} · ${KIND_LABEL[a.kind] ?? a.kind}` },
                    { key: 'result', header: 'Result', sortKey: 'status_code', nowrap: true, render: (a) => <StatusBadge status={a.outcome} label={a.status_code ? `${a.status_code}` : a.outcome === 'failed' ? 'error' : 'ok'} /> },
                    { key: 'latency', header: 'Latency', sortKey: 'latency_ms', align: 'right', nowrap: true, render: (a) => `${a.latency_ms} ms` },
                  ]}
                />
              </>
            )}
          </QueryState>
        </Card>
        {selected && <DeliveryPanel attempt={selected} onClose={() => setSelected(null)} />}
      </div>
      <RecoverCard merchantId={scope} />
    </div>
  );
}

function HealthCard({ e, canEnable }: { e: EndpointHealth; canEnable: boolean }) {
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
      <div className="wh-health__head">
        <span className="wh-url" title={e.url}>
          {e.url}
        </span>
        <StatusBadge status={tone} label={e.status === 'disabled' ? 'Disabled' : e.consecutive_failures > 0 ? `${e.consecutive_failures} failing` : 'Healthy'} />
      </div>
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
          {enable.isError && <span role="alert"> {errorMessage(enable.error)}</span>}
        </div>
      )}
    </div>
  );
}

function DeliveryPanel({ attempt, onClose }: { attempt: WebhookAttempt; onClose: () => void }) {
  const api = useApi();
  const queryClient = useQueryClient();
  const detail = useQuery(webhookQueries.delivery(api, attempt.delivery_id));
  const [note, setNote] = useState<{ tone: 'success' | 'error'; text: string } | null>(null);
  const again = useMutation({
    mutationFn: () => redeliver(api, attempt.event_id),
    onSuccess: () => {
      setNote({ tone: 'success', text: 'Queued: the event is sent again with the same id and body.' });
      void queryClient.invalidateQueries({ queryKey: ['webhooks', api.userId] });
    },
    onError: (err) => setNote({ tone: 'error', text: errorMessage(err) }),
  });
  return (
    <Card
      title="Delivery"
      testId="delivery-detail"
      className="wh-detail"
      actions={
        <>
          <button type="button" className="bo-btn bo-btn--primary bo-btn--sm" disabled={again.isPending} onClick={() => again.mutate()}>
            Redeliver event
          </button>
          <button type="button" className="bo-btn bo-btn--secondary bo-btn--sm" onClick={onClose} aria-label="Close the delivery">
            Close
          </button>
        </>
      }
    >
      {note && (
        <div className={`bo-alert bo-alert--${note.tone}`} role={note.tone === 'error' ? 'alert' : 'status'}>
          {note.text}
        </div>
      )}
      <QueryState query={detail}>
        {(d) => (
          <>
            <DetailList
              items={[
                ['Event', <Mono key="e">{d.event_id}</Mono>],
                ['Type', d.event_type],
                ['Endpoint', <span key="u" className="wh-url">{d.endpoint_url}</span>],
                ['Status', <StatusBadge key="s" status={d.status} />],
                ['Delivered', d.delivered_at ? formatDateTime(d.delivered_at, { seconds: true }) : d.next_attempt_at ? `next attempt ${formatRelative(d.next_attempt_at)}` : '—'],
              ]}
            />
            <h3 className="wh-h3">Request body</h3>
            <pre className="wh-pre">{pretty(d.payload)}</pre>
            <h3 className="wh-h3">Attempts</h3>
            <ol className="bo-timeline">
              {d.attempts.map((a) => (
                <li key={a.id} className="bo-timeline__item">
                  <span className={`bo-timeline__dot bo-timeline__dot--${a.outcome === 'succeeded' ? 'transition' : 'deposit'}`} aria-hidden="true" />
                  <div className="bo-timeline__title">
                    #{a.attempt_number} {KIND_LABEL[a.kind]} · {a.status_code ?? 'no answer'} · {a.latency_ms} ms
                  </div>
                  <div className="bo-timeline__meta">{formatDateTime(a.started_at, { seconds: true })}</div>
                  {a.error && <div className="bo-timeline__meta">{a.error}</div>}
                  <div className="wh-exchange">
                    <Headers title="Request headers" headers={a.request_headers} empty="Not recorded (attempt made before headers were kept)." />
                    <Headers title="Response headers" headers={a.response_headers} empty="No answer." />
                  </div>
                  {a.response_excerpt && (
                    <>
                      <div className="wh-h4">Response body (start)</div>
                      <pre className="wh-pre wh-pre--small">{a.response_excerpt}</pre>
                    </>
                  )}
                </li>
              ))}
            </ol>
          </>
        )}
      </QueryState>
    </Card>
  );
}

/** One side's headers, one per line as on the wire. */
function Headers({ title, headers, empty }: { title: string; headers: Record<string, string> | null; empty: string }) {
  const entries = headers ? Object.entries(headers) : [];
  return (
    <div className="wh-headers">
      <div className="wh-h4">{title}</div>
      {entries.length === 0 ? (
        <div className="bo-muted">{empty}</div>
      ) : (
        <pre className="wh-pre wh-pre--small" aria-label={title}>
          {entries.map(([k, v]) => `${k}: ${v}`).join('\n')}
        </pre>
      )}
    </div>
  );
}

function pretty(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

function RecoverCard({ merchantId }: { merchantId: string | undefined }) {
  const api = useApi();
  const queryClient = useQueryClient();
  const [day, setDay] = useState(dateInputValue(new Date(Date.now() - 86_400_000)));
  const [note, setNote] = useState<{ tone: 'success' | 'error'; text: string } | null>(null);
  const run = useMutation({
    mutationFn: () => recover(api, merchantId, dayStartIso(day) ?? new Date().toISOString()),
    onSuccess: (r) => {
      setNote({ tone: 'success', text: r.recovered ? `Requeued ${r.recovered} failed deliver${r.recovered === 1 ? 'y' : 'ies'}.` : 'Nothing had failed since then.' });
      void queryClient.invalidateQueries({ queryKey: ['webhooks', api.userId] });
    },
    onError: (err) => setNote({ tone: 'error', text: errorMessage(err) }),
  });
  return (
    <Card title="Recover failed deliveries">
      <p className="bo-muted">Sends again every delivery that finally failed since the chosen day (after an endpoint outage), with the same event ids and bodies.</p>
      <div className="bo-inline-form">
        <InputField label="Failed since" type="date" value={day} onChange={setDay} />
        <button type="button" className="bo-btn bo-btn--secondary bo-export-btn" disabled={run.isPending} onClick={() => run.mutate()}>
          Recover failed
        </button>
      </div>
      {note && (
        <div className={`bo-alert bo-alert--${note.tone}`} role={note.tone === 'error' ? 'alert' : 'status'}>
          {note.text}
        </div>
      )}
    </Card>
  );
}
