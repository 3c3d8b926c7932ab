import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useApi } from '../common/api';
import { useErrorText } from '../common/error-text';
import { dateInputValue, dayStartIso, formatDateTime, formatRelative } from '../common/format';
import { Card, DetailList, InputField, Mono, QueryState, StatusBadge } from '../../../ui/blocks';
import { recover, redeliver, webhookQueries } from './webhooks.queries';

export const KIND_LABEL: Record<string, string> = { initial: 'Initial', automatic_retry: 'Retry', manual: 'Manual' };

/** One delivery at its own address (/backoffice/webhooks/deliveries/<id>), so Back returns to the log. */
export function DeliveryPanel({ deliveryId, onClose }: { deliveryId: string; onClose: () => void }) {
  const errorMessage = useErrorText();
  const api = useApi();
  const queryClient = useQueryClient();
  const detail = useQuery(webhookQueries.delivery(api, deliveryId));
  const [note, setNote] = useState<{ tone: 'success' | 'error'; text: string } | null>(null);
  const again = useMutation({
    mutationFn: () => redeliver(api, detail.data?.event_id ?? ''),
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
          <button type="button" className="bo-btn bo-btn--primary bo-btn--sm" disabled={again.isPending || !detail.data} onClick={() => again.mutate()}>
            Redeliver event
          </button>
          <button type="button" className="bo-btn bo-btn--secondary bo-btn--sm" onClick={onClose}>
            ← Delivery log
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

export function RecoverCard({ merchantId }: { merchantId: string | undefined }) {
  const errorMessage = useErrorText();
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
