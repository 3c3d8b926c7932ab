import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as m0008 from '../../server/db/migrations/0008_webhook_held_deliveries';
import { randomIds } from '../../server/lib/ids';
import { ALL_MERCHANTS, enableEndpoint } from '../../server/modules/webhooks/webhooks.service';
import { createTestApp, type TestContext } from '../support/app';
import { onPostgres } from '../support/database';
import { deliveriesOf, paidSession } from '../support/webhooks';

/**
 * Migration 0008 on a populated database: what the code before it did to a disabled
 * endpoint's deliveries (failed them, or wrote none) becomes held deliveries, and stored
 * response headers are cut down to the allow-list.
 */
let t: TestContext;
beforeEach(async () => {
  t = await createTestApp();
});
afterEach(async () => {
  await t.close();
});

// The repair 0008 makes (held deliveries, trimmed headers) is of rows written by releases before
// it, which only SQLite files have: on PostgreSQL the migration history starts empty and 0008
// only adds the column and its index, which test/integration/migrations-postgres.test.ts covers.
describe.skipIf(onPostgres)('migration 0008_webhook_held_deliveries', () => {
  it('holds what a disabled endpoint lost, leaves other failures alone, and trims stored headers', async () => {
    const db = t.database.db;
    const m = await t.merchant(undefined, 'http://127.0.0.1:9/hook');
    const other = await t.merchant(undefined, 'http://127.0.0.1:9/other');
    const e1 = (await paidSession(t, m.api_key)).event;
    const e2 = (await paidSession(t, m.api_key)).event;
    const e3 = (await paidSession(t, m.api_key)).event;
    const o1 = (await paidSession(t, other.api_key)).event;
    const endpoint = await db.selectFrom('webhook_endpoints').select('id').where('integration_id', '=', m.integration_id).executeTakeFirstOrThrow();

    // The state the code before 0008 left: a 410 failed e1, disabled the endpoint and failed e2 with it; e3 got no row.
    const gone = 'receiver answered 410 Gone at 2026-06-01T09:00:00.000Z';
    await db.updateTable('webhook_endpoints').set({ status: 'disabled', disabled_reason: gone }).where('id', '=', endpoint.id).execute();
    const old = (eventId: string, last_error: string) =>
      db.updateTable('webhook_deliveries').set({ status: 'failed', next_attempt_at: null, last_error }).where('event_id', '=', eventId).execute();
    await old(e1.id, 'receiver answered 410 Gone: endpoint disabled');
    await old(e2.id, `endpoint disabled: ${gone}`);
    await db.deleteFrom('webhook_deliveries').where('event_id', '=', e3.id).execute();
    // On an endpoint enabled again since, such a failure stays failed (webhooks:recover sends it).
    await old(o1.id, 'endpoint disabled: paused by hand');
    const [o1d] = await deliveriesOf(t, o1.id);
    await db
      .insertInto('webhook_delivery_attempts')
      .values({
        id: `wha_${randomIds.token('x', 8)}`,
        delivery_id: o1d!.id,
        event_id: o1.id,
        endpoint_id: o1d!.endpoint_id,
        attempt_number: 1,
        kind: 'initial',
        url: 'http://127.0.0.1:9/other',
        started_at: o1.created_at,
        latency_ms: 3,
        outcome: 'failed',
        status_code: 500,
        error: 'receiver answered 500',
        response_excerpt: 'no',
        request_headers: '{}',
        response_headers: JSON.stringify({ 'content-type': 'text/plain', 'set-cookie': 'admin=1', 'x-internal': 'secret', server: 'nginx' }),
        next_attempt_at: null,
      })
      .execute();
    // Back to the schema before 0008.
    await sql`DROP INDEX webhook_deliveries_held`.execute(db);
    await sql`ALTER TABLE webhook_deliveries DROP COLUMN held_at`.execute(db);

    // 0008's own up(), as the runner would apply it (later migrations are already in place here).
    await m0008.up(db as never);

    for (const e of [e1, e2, e3]) {
      expect(await deliveriesOf(t, e.id), e.id).toMatchObject([{ endpoint_id: endpoint.id, status: 'pending', next_attempt_at: null, held_at: expect.any(String) }]);
    }
    expect(await deliveriesOf(t, o1.id)).toMatchObject([{ status: 'failed', held_at: null }]);
    const a = await db.selectFrom('webhook_delivery_attempts').select('response_headers').where('event_id', '=', o1.id).executeTakeFirstOrThrow();
    expect(JSON.parse(a.response_headers!)).toEqual({ 'content-type': 'text/plain', server: 'nginx' });

    const enabled = await enableEndpoint(db, t.clock, endpoint.id, ALL_MERCHANTS);
    expect(enabled.released_deliveries).toBe(3);
  });
});
