import { sql, type Kysely } from 'kysely';
import { ddl } from './ddl';

// Frozen: the webhook delivery outbox. One delivery per (event, endpoint) carries the retry
// state; every HTTP attempt is its own row (the delivery log shown in the back office).
export async function up(db: Kysely<unknown>): Promise<void> {
  const { pg, int, table, check } = ddl(db);

  let deliveries = table('webhook_deliveries');
  // The dispatcher orders deliveries of one millisecond by insertion order: SQLite's implicit
  // rowid; PostgreSQL has none, so there it is a column of the same name.
  if (pg) deliveries = deliveries.addColumn('rowid', 'bigint', (c) => c.generatedByDefaultAsIdentity().notNull().unique());
  await deliveries
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('event_id', 'text', (c) => c.notNull().references('events.id'))
    .addColumn('endpoint_id', 'text', (c) => c.notNull().references('webhook_endpoints.id'))
    .addColumn('integration_id', 'text', (c) => c.notNull().references('integrations.id'))
    .addColumn('session_id', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(check("status IN ('pending','succeeded','failed')")))
    .addColumn('attempt_count', int, (c) => c.notNull().defaultTo(0))
    .addColumn('schedule_step', int, (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'text')
    .addColumn('manual_requested_at', 'text')
    .addColumn('claimed_by', 'text')
    .addColumn('locked_until', 'text')
    .addColumn('last_attempt_at', 'text')
    .addColumn('last_status_code', int)
    .addColumn('last_error', 'text')
    .addColumn('delivered_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('webhook_deliveries_event_endpoint', ['event_id', 'endpoint_id'])
    .execute();
  await db.schema.createIndex('webhook_deliveries_due').on('webhook_deliveries').columns(['status', 'next_attempt_at']).execute();
  await db.schema.createIndex('webhook_deliveries_endpoint').on('webhook_deliveries').columns(['endpoint_id', 'created_at']).execute();
  await db.schema.createIndex('webhook_deliveries_session').on('webhook_deliveries').column('session_id').execute();

  await table('webhook_delivery_attempts')
    // SQLite: INTEGER PRIMARY KEY is the rowid, numbered on insert; PostgreSQL: an identity column.
    .addColumn('seq', int, (c) => (pg ? c.generatedByDefaultAsIdentity().primaryKey() : c.primaryKey()))
    .addColumn('id', 'text', (c) => c.notNull().unique())
    .addColumn('delivery_id', 'text', (c) => c.notNull().references('webhook_deliveries.id'))
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('endpoint_id', 'text', (c) => c.notNull())
    .addColumn('attempt_number', int, (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull().check(check("kind IN ('initial','automatic_retry','manual')")))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addColumn('latency_ms', int, (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull().check(check("outcome IN ('succeeded','failed')")))
    .addColumn('status_code', int)
    .addColumn('error', 'text')
    .addColumn('response_excerpt', 'text')
    .addColumn('next_attempt_at', 'text')
    .execute();
  await db.schema.createIndex('webhook_delivery_attempts_delivery').on('webhook_delivery_attempts').columns(['delivery_id', 'seq']).execute();
  await db.schema.createIndex('webhook_delivery_attempts_endpoint').on('webhook_delivery_attempts').columns(['endpoint_id', 'started_at']).execute();
  await db.schema.createIndex('webhook_delivery_attempts_started').on('webhook_delivery_attempts').column('started_at').execute();

  // Events recorded before this release were written to be delivered: queue them now. (SQLite
  // files of earlier releases only: a PostgreSQL database starts from this history, empty.)
  if (!pg) {
    await sql`
      INSERT INTO webhook_deliveries (id, event_id, endpoint_id, integration_id, session_id, event_type, status,
                                      next_attempt_at, created_at, updated_at)
      SELECT 'whd_' || lower(hex(randomblob(12))), e.id, w.id, e.integration_id, e.session_id, e.type, 'pending',
             e.created_at, e.created_at, e.created_at
      FROM events e JOIN webhook_endpoints w ON w.integration_id = e.integration_id AND w.status = 'active'`.execute(db);
  }
}
