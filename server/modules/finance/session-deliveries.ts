import type { Db } from '../../db/database';
import type { TimelineEntry } from '../../../shared/schemas/backoffice';

/** Webhook delivery attempts of these events, oldest first. */
export async function deliveryEntries(db: Db, eventIds: string[]): Promise<TimelineEntry[]> {
  if (eventIds.length === 0) return [];
  const rows = await db
    .selectFrom('webhook_delivery_attempts')
    .select(['event_id', 'started_at', 'kind', 'outcome', 'status_code', 'error', 'latency_ms', 'url'])
    // Through the events' deliveries (unique (event_id, endpoint_id), then (delivery_id, seq)):
    // the attempt log has no index on event_id (migration 0027).
    .where('delivery_id', 'in', (eb) => eb.selectFrom('webhook_deliveries').select('id').where('event_id', 'in', eventIds))
    .orderBy('seq')
    .execute();
  return rows.map((r) => ({
    at: r.started_at,
    kind: 'delivery' as const,
    code: r.outcome === 'succeeded' ? ('webhook_delivered' as const) : ('webhook_failed' as const),
    args: { status_code: r.status_code ?? null },
    title: r.outcome === 'succeeded' ? `Webhook delivered (${r.status_code ?? 'ok'})` : `Webhook attempt failed${r.status_code ? ` (${r.status_code})` : ''}`,
    detail: [r.url, `${r.latency_ms} ms`, r.kind.replace('_', ' '), r.error].filter(Boolean).join(' · '),
    ref: r.event_id,
  }));
}
