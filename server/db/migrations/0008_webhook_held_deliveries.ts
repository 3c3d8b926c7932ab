import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../engine';

// Frozen: deliveries to a disabled endpoint are held, not failed or skipped (server/modules/webhooks/hold.ts),
// and only an allow-list of response headers is kept in the delivery log.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('webhook_deliveries').addColumn('held_at', 'text').execute();
  // The claim rule looks for older released deliveries of the same endpoint.
  await db.schema.createIndex('webhook_deliveries_held').on('webhook_deliveries').columns(['endpoint_id', 'created_at']).where(sql.ref('held_at'), 'is not', null).execute();
  // What follows repairs rows written by earlier releases, which only SQLite files have: a
  // PostgreSQL database starts from this history with no rows (and the SQL is SQLite's).
  if (isPostgres(db)) return;

  // Deliveries failed only because their endpoint was disabled (by a 410 or by hand), on an
  // endpoint still disabled: held now, so enabling it sends them.
  await sql`
    UPDATE webhook_deliveries
    SET status = 'pending', held_at = updated_at, next_attempt_at = NULL,
        last_error = 'held: ' || coalesce(last_error, 'endpoint disabled')
    WHERE status = 'failed'
      AND (last_error LIKE 'endpoint disabled%' OR last_error LIKE 'receiver answered 410 Gone%')
      AND endpoint_id IN (SELECT id FROM webhook_endpoints WHERE status = 'disabled')`.execute(db);

  // Events recorded while an endpoint was disabled got no delivery at all: give them a held one.
  // (An endpoint active at the time of an event always got a row, so a missing row after the
  // endpoint was created means it was disabled then.)
  await sql`
    INSERT INTO webhook_deliveries (id, event_id, endpoint_id, integration_id, session_id, event_type, status,
                                    next_attempt_at, held_at, last_error, created_at, updated_at)
    SELECT 'whd_' || lower(hex(randomblob(12))), e.id, w.id, e.integration_id, e.session_id, e.type, 'pending',
           NULL, e.created_at, 'held: endpoint disabled', e.created_at, e.created_at
    FROM events e JOIN webhook_endpoints w ON w.integration_id = e.integration_id AND w.status = 'disabled'
    WHERE e.created_at >= w.created_at
      AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id AND d.endpoint_id = w.id)
    ORDER BY e.created_at, e.rowid`.execute(db);

  // Stored response headers: keep only the allow-list (server/modules/webhooks/http-attempt.ts).
  await sql`
    UPDATE webhook_delivery_attempts
    SET response_headers = (
      SELECT json_group_object(key, value) FROM json_each(webhook_delivery_attempts.response_headers)
      WHERE key IN ('content-type', 'content-length', 'date', 'server', 'retry-after', 'location', 'x-request-id'))
    WHERE response_headers IS NOT NULL AND json_valid(response_headers)`.execute(db);
}
