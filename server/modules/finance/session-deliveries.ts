import type { Db } from '../../db/database';
import type { TimelineEntry } from '../../../shared/schemas/backoffice';
import { eventTypeLabel } from '../../../shared/labels';

/** Why an attempt did not get through, as a clerk reads it: refused with an HTTP status, no answer in time, or not reached at all. */
type FailReason = 'refused' | 'timeout' | 'unreachable';
/** What happened after a failed attempt: a retry is due, it was tried again, the retries ran out, or nothing more to say (the delivery is held). */
type Then = 'retry' | 'retried' | 'gave_up' | 'none';

const REASON_WORDS: Record<FailReason, (code: number | null) => string> = {
  refused: (code) => `the merchant’s server refused it (HTTP ${code})`,
  timeout: () => "the merchant’s server did not answer in time",
  unreachable: () => "the merchant’s server could not be reached",
};

/** A notification's detail is its technical record, for API clients: nothing for a screen to word. */
const NO_DETAIL = { detail_code: null, detail_args: {} } as const;

function failReason(statusCode: number | null, error: string | null): FailReason {
  if (statusCode !== null) return 'refused';
  return error !== null && /timed out/i.test(error) ? 'timeout' : 'unreachable';
}

/**
 * The notifications of these events to the merchant’s server, oldest first, in a finance
 * clerk's words: each attempt says whether the merchant’s server accepted it and, when it did
 * not, why and what comes next (a retry at a given time, tried again, no more automatic retries);
 * a delivery held while the merchant’s notification address is switched off has a line of its
 * own. `code` and `args` carry the same for the screen to word in its reader's language; `detail`
 * keeps the technical record (address, latency, kind of attempt, error) for API clients (no
 * `detail_code`: the screen does not show it).
 */
export async function deliveryEntries(db: Db, eventIds: string[]): Promise<TimelineEntry[]> {
  if (eventIds.length === 0) return [];
  const deliveries = await db
    .selectFrom('webhook_deliveries')
    .select(['id', 'event_id', 'event_type', 'status', 'held_at', 'next_attempt_at'])
    .where('event_id', 'in', eventIds)
    .execute();
  if (deliveries.length === 0) return [];
  const rows = await db
    .selectFrom('webhook_delivery_attempts')
    .select(['delivery_id', 'event_id', 'started_at', 'kind', 'outcome', 'status_code', 'error', 'latency_ms', 'url', 'next_attempt_at'])
    // By the events' deliveries (read above by their unique (event_id, endpoint_id)), then
    // (delivery_id, seq): the attempt log has no index on event_id (migration 0027).
    .where('delivery_id', 'in', deliveries.map((d) => d.id))
    .orderBy('seq')
    .execute();
  const byId = new Map(deliveries.map((d) => [d.id, d]));
  const out = rows.map((r, i): TimelineEntry => {
    const d = byId.get(r.delivery_id)!;
    const what = eventTypeLabel(d.event_type);
    const detail = [r.url, `${r.latency_ms} ms`, r.kind.replace('_', ' '), r.error].filter(Boolean).join(' · ');
    if (r.outcome === 'succeeded') {
      return { at: r.started_at, kind: 'delivery', code: 'webhook_delivered', args: { type: d.event_type, status_code: r.status_code ?? null }, title: `Merchant notified: ${what}, accepted by the merchant’s server`, detail, ...NO_DETAIL, ref: r.event_id };
    }
    const later = rows.slice(i + 1).find((n) => n.delivery_id === r.delivery_id);
    const last = later === undefined;
    const held = last && d.status === 'pending' && d.held_at !== null && d.next_attempt_at === null;
    const then: Then = later ? 'retried' : held ? 'none' : d.status === 'failed' ? 'gave_up' : r.next_attempt_at !== null || d.next_attempt_at !== null ? 'retry' : 'none';
    const at = then === 'retried' ? later!.started_at : then === 'retry' ? (d.next_attempt_at ?? r.next_attempt_at) : null;
    const reason = failReason(r.status_code, r.error);
    const words = REASON_WORDS[reason](r.status_code);
    const title =
      then === 'retry'
        ? `Notification held: ${what}, ${words}; will retry at ${at}`
        : then === 'retried'
          ? `Notification not accepted: ${what}, ${words}; tried again at ${at}`
          : then === 'gave_up'
            ? `Notification not delivered: ${what}, ${words}; no more automatic retries`
            : `Notification not accepted: ${what}, ${words}`;
    return { at: r.started_at, kind: 'delivery', code: 'webhook_failed', args: { type: d.event_type, status_code: r.status_code ?? null, reason, then, at }, title, detail, ...NO_DETAIL, ref: r.event_id };
  });
  // Held while the merchant’s notification address is switched off: nothing is sent until an administrator switches it back on.
  for (const d of deliveries) {
    if (d.status !== 'pending' || d.held_at === null || d.next_attempt_at !== null) continue;
    out.push({
      at: d.held_at,
      kind: 'delivery',
      code: 'webhook_held',
      args: { type: d.event_type },
      title: `Notification held: ${eventTypeLabel(d.event_type)}, the merchant’s notification address is switched off; it will be sent once it is switched back on`,
      detail: '',
      ...NO_DETAIL,
      ref: d.event_id,
    });
  }
  return out;
}
