import { sql, type Kysely } from 'kysely';

// Frozen: the webhook delivery outbox. One delivery per (event, endpoint) carries the retry
// state; every HTTP attempt is its own row (the delivery log shown in the back office).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE webhook_deliveries (
      id TEXT PRIMARY KEY,
      event_id TEXT NOT NULL REFERENCES events(id),
      endpoint_id TEXT NOT NULL REFERENCES webhook_endpoints(id),
      integration_id TEXT NOT NULL REFERENCES integrations(id),
      session_id TEXT NOT NULL,
      event_type TEXT NOT NULL,
      status TEXT NOT NULL CHECK (status IN ('pending','succeeded','failed')),
      attempt_count INTEGER NOT NULL DEFAULT 0,
      schedule_step INTEGER NOT NULL DEFAULT 0,
      next_attempt_at TEXT,
      manual_requested_at TEXT,
      claimed_by TEXT,
      locked_until TEXT,
      last_attempt_at TEXT,
      last_status_code INTEGER,
      last_error TEXT,
      delivered_at TEXT,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      UNIQUE (event_id, endpoint_id)
    ) STRICT`.execute(db);
  await sql`CREATE INDEX webhook_deliveries_due ON webhook_deliveries(status, next_attempt_at)`.execute(db);
  await sql`CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries(endpoint_id, created_at)`.execute(db);
  await sql`CREATE INDEX webhook_deliveries_session ON webhook_deliveries(session_id)`.execute(db);

  await sql`
    CREATE TABLE webhook_delivery_attempts (
      seq INTEGER PRIMARY KEY,
      id TEXT NOT NULL UNIQUE,
      delivery_id TEXT NOT NULL REFERENCES webhook_deliveries(id),
      event_id TEXT NOT NULL,
      endpoint_id TEXT NOT NULL,
      attempt_number INTEGER NOT NULL,
      kind TEXT NOT NULL CHECK (kind IN ('initial','automatic_retry','manual')),
      url TEXT NOT NULL,
      started_at TEXT NOT NULL,
      latency_ms INTEGER NOT NULL,
      outcome TEXT NOT NULL CHECK (outcome IN ('succeeded','failed')),
      status_code INTEGER,
      error TEXT,
      response_excerpt TEXT,
      next_attempt_at TEXT
    ) STRICT`.execute(db);
  await sql`CREATE INDEX webhook_delivery_attempts_delivery ON webhook_delivery_attempts(delivery_id, seq)`.execute(db);
  await sql`CREATE INDEX webhook_delivery_attempts_endpoint ON webhook_delivery_attempts(endpoint_id, started_at)`.execute(db);
  await sql`CREATE INDEX webhook_delivery_attempts_started ON webhook_delivery_attempts(started_at)`.execute(db);

  // Events recorded before this release were written to be delivered: queue them now.
  await sql`
    INSERT INTO webhook_deliveries (id, event_id, endpoint_id, integration_id, session_id, event_type, status,
                                    next_attempt_at, created_at, updated_at)
    SELECT 'whd_' || lower(hex(randomblob(12))), e.id, w.id, e.integration_id, e.session_id, e.type, 'pending',
           e.created_at, e.created_at, e.created_at
    FROM events e JOIN webhook_endpoints w ON w.integration_id = e.integration_id AND w.status = 'active'`.execute(db);
}
