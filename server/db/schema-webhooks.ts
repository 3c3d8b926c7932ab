import type { Generated } from 'kysely';

/** Row types of the event and webhook delivery tables (re-exported by schema.ts). */

export interface EventsTable {
  id: string;
  type: 'checkout.session.completed' | 'checkout.session.failed' | 'checkout.session.expired';
  session_id: string;
  integration_id: string;
  /** The exact JSON body every delivery of this event sends. */
  payload: string;
  created_at: string;
}

/** One event × one endpoint: the retry state of that delivery (server/modules/webhooks/). */
export interface WebhookDeliveriesTable {
  id: string;
  event_id: string;
  endpoint_id: string;
  integration_id: string;
  session_id: string;
  event_type: EventsTable['type'];
  status: 'pending' | 'succeeded' | 'failed';
  attempt_count: number;
  /** Failed attempts in the current run of the retry schedule (a manual redelivery restarts it). */
  schedule_step: number;
  /** When the next attempt is due; null once succeeded or failed. */
  next_attempt_at: string | null;
  /** Set by a manual redelivery: the next attempt is logged as kind `manual`. */
  manual_requested_at: string | null;
  /**
   * When the delivery was held because its endpoint is disabled (migration 0008). Held: status
   * `pending` with `next_attempt_at` null, never claimed. Enabling the endpoint sets
   * `next_attempt_at` and keeps this until the first attempt after the release, which is
   * what sends released deliveries one at a time in event order (server/modules/webhooks/hold.ts).
   */
  held_at: string | null;
  /** Dispatcher holding the delivery while an attempt is in flight (`host:pid:token`). */
  claimed_by: string | null;
  locked_until: string | null;
  last_attempt_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
  delivered_at: string | null;
  created_at: string;
  updated_at: string;
}

/** Every HTTP attempt of a delivery: the delivery log. */
export interface WebhookDeliveryAttemptsTable {
  /** Insertion order (SQLite rowid): `webhooks:tail` follows it. */
  seq: Generated<number>;
  id: string;
  delivery_id: string;
  event_id: string;
  endpoint_id: string;
  attempt_number: number;
  kind: 'initial' | 'automatic_retry' | 'manual';
  url: string;
  started_at: string;
  latency_ms: number;
  outcome: 'succeeded' | 'failed';
  status_code: number | null;
  error: string | null;
  /** First bytes of the receiver's answer (UTF-8, truncated). */
  response_excerpt: string | null;
  /** JSON object of the request headers sent (signature included; never the secret). Migration 0006; null before it. */
  request_headers: string | null;
  /** JSON object of the receiver's response headers (capped at 4 KiB), null without an answer. Migration 0006. */
  response_headers: string | null;
  /** The retry this attempt scheduled, if any. */
  next_attempt_at: string | null;
}
