import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useApi } from '../common/api';
import { useErrorText } from '../common/error-text';
import { useT, type T } from '../../../ui/i18n';
import { dateInputValue, dayStartIso, formatDateTime, formatRelative } from '../common/format';
import { Card, DetailList, InputField, Mono, QueryState, StatusBadge } from '../../../ui/blocks';
import { recover, redeliver, webhookQueries } from './webhooks.queries';

/** An attempt's kind in words; an unknown kind reads as its code. */
export const kindLabel = (t: T, kind: string): string =>
  kind === 'initial' ? t('webhooks.kind.initial') : kind === 'automatic_retry' ? t('webhooks.kind.automatic_retry') : kind === 'manual' ? t('webhooks.kind.manual') : kind;

const statusLabel = (t: T, status: string): string =>
  status === 'pending'
    ? t('webhooks.status.pending')
    : status === 'held'
      ? t('webhooks.status.held')
      : status === 'succeeded'
        ? t('webhooks.status.succeeded')
        : status === 'failed'
          ? t('webhooks.status.failed')
          : status;

/** One delivery at its own address (/backoffice/webhooks/deliveries/<id>), so Back returns to the log. */
export function DeliveryPanel({ deliveryId, onClose }: { deliveryId: string; onClose: () => void }) {
  const errorMessage = useErrorText();
  const t = useT();
  const api = useApi();
  const queryClient = useQueryClient();
  const detail = useQuery(webhookQueries.delivery(api, deliveryId));
  const [note, setNote] = useState<{ tone: 'success' | 'error'; text: string } | null>(null);
  const again = useMutation({
    mutationFn: () => redeliver(api, detail.data?.event_id ?? ''),
    onSuccess: () => {
      setNote({ tone: 'success', text: t('webhooks.delivery.queued') });
      void queryClient.invalidateQueries({ queryKey: ['webhooks', api.userId] });
    },
    onError: (err) => setNote({ tone: 'error', text: errorMessage(err) }),
  });
  return (
    <Card
      title={t('webhooks.delivery.title')}
      testId="delivery-detail"
      className="wh-detail"
      actions={
        <>
          <button type="button" className="bo-btn bo-btn--primary bo-btn--sm" disabled={again.isPending || !detail.data} onClick={() => again.mutate()}>
            {t('webhooks.delivery.redeliver')}
          </button>
          <button type="button" className="bo-btn bo-btn--secondary bo-btn--sm" onClick={onClose}>
            {t('webhooks.delivery.back')}
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
                [t('webhooks.event'), <Mono key="e">{d.event_id}</Mono>],
                [t('webhooks.delivery.type'), <span key="t" translate="no">{d.event_type}</span>],
                [t('webhooks.endpoint'), <span key="u" className="wh-url" translate="no">{d.endpoint_url}</span>],
                [t('webhooks.delivery.status'), <StatusBadge key="s" status={d.status} label={statusLabel(t, d.status)} />],
                [
                  t('webhooks.delivery.delivered'),
                  d.delivered_at ? (
                    <time key="d" dateTime={d.delivered_at}>{formatDateTime(d.delivered_at, { seconds: true })}</time>
                  ) : d.next_attempt_at ? (
                    t('webhooks.delivery.nextAttempt', { when: <time key="n" dateTime={d.next_attempt_at}>{formatRelative(d.next_attempt_at)}</time> })
                  ) : (
                    '—'
                  ),
                ],
              ]}
            />
            <h3 className="wh-h3">{t('webhooks.delivery.body')}</h3>
            <pre className="wh-pre" translate="no">{pretty(d.payload)}</pre>
            <h3 className="wh-h3">{t('webhooks.delivery.attempts')}</h3>
            <ol className="bo-timeline">
              {d.attempts.map((a) => (
                <li key={a.id} className="bo-timeline__item">
                  <span className={`bo-timeline__dot bo-timeline__dot--${a.outcome === 'succeeded' ? 'transition' : 'deposit'}`} aria-hidden="true" />
                  <div className="bo-timeline__title">
                    {t('webhooks.attemptKind', { number: a.attempt_number, kind: kindLabel(t, a.kind) })} · {a.status_code ?? t('webhooks.delivery.noAnswer')} · {t('webhooks.ms', { ms: a.latency_ms })}
                  </div>
                  <div className="bo-timeline__meta">
                    <time dateTime={a.started_at}>{formatDateTime(a.started_at, { seconds: true })}</time>
                  </div>
                  {a.error && (
                    <div className="bo-timeline__meta" translate="no">
                      {a.error}
                    </div>
                  )}
                  <div className="wh-exchange">
                    <Headers title={t('webhooks.delivery.requestHeaders')} headers={a.request_headers} empty={t('webhooks.delivery.notRecorded')} />
                    <Headers title={t('webhooks.delivery.responseHeaders')} headers={a.response_headers} empty={t('webhooks.delivery.noResponse')} />
                  </div>
                  {a.response_excerpt && (
                    <>
                      <div className="wh-h4">{t('webhooks.delivery.responseBody')}</div>
                      <pre className="wh-pre wh-pre--small" translate="no">{a.response_excerpt}</pre>
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
        <pre className="wh-pre wh-pre--small" aria-label={title} translate="no">
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
  const t = useT();
  const api = useApi();
  const queryClient = useQueryClient();
  const [day, setDay] = useState(dateInputValue(new Date(Date.now() - 86_400_000)));
  const [note, setNote] = useState<{ tone: 'success' | 'error'; text: string } | null>(null);
  const run = useMutation({
    mutationFn: () => recover(api, merchantId, dayStartIso(day) ?? new Date().toISOString()),
    onSuccess: (r) => {
      setNote({ tone: 'success', text: r.recovered ? t('webhooks.recover.done', { count: r.recovered }) : t('webhooks.recover.nothing') });
      void queryClient.invalidateQueries({ queryKey: ['webhooks', api.userId] });
    },
    onError: (err) => setNote({ tone: 'error', text: errorMessage(err) }),
  });
  return (
    <Card title={t('webhooks.recover.title')}>
      <p className="bo-muted">{t('webhooks.recover.note')}</p>
      <div className="bo-inline-form">
        <InputField label={t('webhooks.recover.since')} type="date" value={day} onChange={setDay} />
        <button type="button" className="bo-btn bo-btn--secondary bo-export-btn" disabled={run.isPending} onClick={() => run.mutate()}>
          {t('webhooks.recover.run')}
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
