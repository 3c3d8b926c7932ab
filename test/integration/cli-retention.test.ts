import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../support/app';
import { runAdmin, type CliResult } from '../support/cli';
import { openSession } from '../support/checkout';
import { randomIds } from '../../server/lib/ids';
import { storedSummaries, summariesFromBase } from '../support/invoice-summaries';
import type { CreatedIntegration } from '../../server/modules/integrations/integrations.service';

/** `db:stats` and `db:prune` (retention by the documented defaults), and `invoices:rebuild`. */
function json<T>(r: CliResult): T {
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout.trim()) as T;
}

const daysAgo = (d: number) => new Date(Date.now() - d * 86_400_000).toISOString();

describe('db:stats and db:prune', { timeout: 120_000 }, () => {
  let t: TestContext;
  let sessionId: string;
  let endpointId: string;
  let integrationId: string;
  let merchant: CreatedIntegration;

  async function audit(at: string): Promise<string> {
    const id = randomIds.uuid();
    await t.database.db
      .insertInto('audit_log')
      .values({ id, at, actor_id: null, actor_username: 'ops', actor_role: 'admin', action: 'auth.login', target_type: 'staff', target_id: null, merchant_id: null, before: null, after: null, ip: null })
      .execute();
    return id;
  }

  async function event(createdAt: string, deliveryStatus: 'succeeded' | 'pending'): Promise<{ eventId: string; deliveryId: string }> {
    const sessionId = (await openSession(t, merchant)).id; // one event of a type per session
    const eventId = `evt_${randomIds.token('', 20)}`;
    const deliveryId = randomIds.uuid();
    const db = t.database.db;
    await db.insertInto('events').values({ id: eventId, type: 'checkout.session.completed', session_id: sessionId, integration_id: integrationId, payload: '{"id":"x"}', created_at: createdAt }).execute();
    await db
      .insertInto('webhook_deliveries')
      .values({ id: deliveryId, event_id: eventId, endpoint_id: endpointId, integration_id: integrationId, session_id: sessionId, event_type: 'checkout.session.completed', status: deliveryStatus, attempt_count: 1, schedule_step: 0, next_attempt_at: deliveryStatus === 'pending' ? daysAgo(-1) : null, created_at: createdAt, updated_at: createdAt })
      .execute();
    await db
      .insertInto('webhook_delivery_attempts')
      .values({ id: randomIds.uuid(), delivery_id: deliveryId, event_id: eventId, endpoint_id: endpointId, attempt_number: 1, kind: 'initial', url: 'https://hooks.example.com/h', started_at: createdAt, latency_ms: 5, outcome: deliveryStatus === 'pending' ? 'failed' : 'succeeded', status_code: 200 })
      .execute();
    return { eventId, deliveryId };
  }

  const count = async (table: 'audit_log' | 'session_history' | 'webhook_delivery_attempts' | 'idempotency_keys') =>
    Number((await t.database.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

  beforeAll(async () => {
    t = await createTestApp();
    const m = await t.merchant('Retention', 'https://hooks.example.com/paydesk');
    merchant = m;
    integrationId = m.integration_id;
    endpointId = (await t.database.db.selectFrom('webhook_endpoints').select('id').where('integration_id', '=', m.integration_id).executeTakeFirstOrThrow()).id;
    sessionId = (await openSession(t, m)).id;
  });
  afterAll(async () => t?.close());

  it('db:stats --json lists every growing table with its row count and size, largest first', async () => {
    const stats = json<{ engine: string; total_bytes: number; tables: Array<{ table: string; rows: number; bytes: number | null }> }>(await runAdmin(t.dataDir, ['db:stats', '--json']));
    expect(stats.total_bytes).toBeGreaterThan(0);
    const byName = new Map(stats.tables.map((x) => [x.table, x]));
    for (const table of ['checkout_sessions', 'session_history', 'events', 'webhook_delivery_attempts', 'audit_log', 'idempotency_keys']) expect(byName.has(table), table).toBe(true);
    expect(byName.get('checkout_sessions')!.rows).toBe(1);
    expect(byName.get('session_history')!.rows).toBe(1);
    expect(byName.get('checkout_sessions')!.bytes).toBeGreaterThan(0);
    const sizes = stats.tables.map((x) => x.bytes ?? 0);
    expect(sizes).toEqual([...sizes].sort((a, b) => b - a));
    const text = await runAdmin(t.dataDir, ['db:stats']);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/checkout_sessions\s+1 rows/);
  });

  it('the audit trail refuses a delete, and a prune cutoff younger than 365 days, outside db:prune', async () => {
    const old = await audit(daysAgo(3000));
    await expect(t.database.db.deleteFrom('audit_log').where('id', '=', old).execute()).rejects.toThrow(/append-only/);
    await expect(
      t.database.db.insertInto('audit_prune_marks').values({ id: randomIds.uuid(), cutoff: daysAgo(10), recorded_at: daysAgo(0), reason: 'test' }).execute(),
    ).rejects.toThrow(/at least 365 days/);
    await expect(t.database.db.updateTable('audit_log').set({ action: 'auth.logout' }).where('id', '=', old).execute()).rejects.toThrow(/append-only/);
  });

  it('db:prune --dry-run counts what the defaults would remove and removes nothing; db:prune removes exactly that', async () => {
    // Past every default: attempt logs (90 days), bodies (30), history (400), audit (2557).
    const oldEvent = await event(daysAgo(500), 'succeeded');
    const pendingOld = await event(daysAgo(500), 'pending'); // a delivery still being retried keeps its log and body
    const recent = await event(daysAgo(1), 'succeeded');
    await t.database.db.insertInto('session_history').values({ id: randomIds.uuid(), session_id: sessionId, from_status: 'open', to_status: 'open', cause: 'old', at: daysAgo(500) }).execute();
    // The audit entry of 3000 days ago (the test above) is the one past AUDIT_RETENTION_DAYS.
    const keptAudit = await audit(daysAgo(400));
    const recentAudit = await audit(daysAgo(0));
    await t.database.db
      .insertInto('idempotency_keys')
      .values({ integration_id: integrationId, key: 'old-key', method: 'POST', path: '/api/v1/sessions', fingerprint: 'f', state: 'completed', response_status: 201, response_body: '{}', created_at: daysAgo(3), expires_at: daysAgo(2) })
      .execute();

    const before = { audit: await count('audit_log'), history: await count('session_history'), logs: await count('webhook_delivery_attempts'), keys: await count('idempotency_keys') };
    type Out = { dry_run: boolean; rules: Array<{ rule: string; rows: number; cutoff: string }> };
    const dry = json<Out>(await runAdmin(t.dataDir, ['db:prune', '--dry-run', '--json']));
    const rows = (o: Out) => Object.fromEntries(o.rules.map((r) => [r.rule, r.rows]));
    expect(dry.dry_run).toBe(true);
    expect(rows(dry)).toEqual({ idempotency_keys: 1, webhook_attempt_logs: 1, webhook_bodies: 1, session_history: 1, audit_log: 1 });
    expect({ audit: await count('audit_log'), history: await count('session_history'), logs: await count('webhook_delivery_attempts'), keys: await count('idempotency_keys') }).toEqual(before);

    const done = json<Out>(await runAdmin(t.dataDir, ['db:prune', '--json']));
    expect(rows(done)).toEqual(rows(dry));
    expect(await count('audit_log')).toBe(before.audit - 1);
    expect(await count('session_history')).toBe(before.history - 1);
    expect(await count('webhook_delivery_attempts')).toBe(before.logs - 1);
    expect(await count('idempotency_keys')).toBe(before.keys - 1);
    const payload = async (id: string) => (await t.database.db.selectFrom('events').select('payload').where('id', '=', id).executeTakeFirstOrThrow()).payload;
    expect(await payload(oldEvent.eventId)).toBe('');
    expect(await payload(pendingOld.eventId)).not.toBe('');
    expect(await payload(recent.eventId)).not.toBe('');
    const audits = (await t.database.db.selectFrom('audit_log').select('id').where('id', 'in', [keptAudit, recentAudit]).execute()).map((r) => r.id);
    expect(audits.sort()).toEqual([keptAudit, recentAudit].sort());
    // The prune left its mark, and past that cutoff the recent entries are still undeletable.
    const marks = await t.database.db.selectFrom('audit_prune_marks').selectAll().execute();
    expect(marks).toHaveLength(1);
    expect(marks[0]!.reason).toMatch(/AUDIT_RETENTION_DAYS=2557/);
    await expect(t.database.db.deleteFrom('audit_log').where('id', '=', keptAudit).execute()).rejects.toThrow(/append-only/);
    // The emptied event cannot be sent again, and says why.
    const again = await runAdmin(t.dataDir, ['webhooks:redeliver', '--event', oldEvent.eventId, '--json']);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toMatch(/webhook body retention/);
    // A second run finds nothing more.
    expect(Object.values(rows(json<Out>(await runAdmin(t.dataDir, ['db:prune', '--json']))))).toEqual([0, 0, 0, 0, 0]);
  });

  it('invoices:rebuild recomputes the invoice summaries from lines and sessions (after a manual change of the table)', async () => {
    await openSession(t, merchant, { invoice_ref: 'REBUILD-1' });
    await t.database.db.updateTable('invoice_summaries').set({ session_count: 99, paid_minor: 5 }).execute();
    await t.database.db.deleteFrom('invoice_summaries').where('invoice_ref', '=', 'REBUILD-1').execute();
    expect(await storedSummaries(t.database.db)).not.toEqual(await summariesFromBase(t.database.db));
    const out = json<{ invoices: number }>(await runAdmin(t.dataDir, ['invoices:rebuild', '--json']));
    const expected = await summariesFromBase(t.database.db);
    expect(out.invoices).toBe(expected.length);
    expect(expected.map((r) => r.invoice_ref)).toContain('REBUILD-1');
    expect(await storedSummaries(t.database.db)).toEqual(expected);
  });
});
