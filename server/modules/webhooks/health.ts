import type { Db } from '../../db/database';
import type { Clock } from '../../lib/clock';
import { invalid, notFound } from '../../lib/errors';
import { deliveryStatusSql, type WebhookScope } from './scope';
import type { EndpointHealth } from '../../../shared/schemas/webhooks';

/** Endpoint health for the back office and the CLI: backlog, success rate, latency, failure streak (documented in webhooks.service.ts). */
export async function endpointHealth(
  db: Db,
  clock: Clock,
  input: { integrationId?: string | undefined; endpointId?: string | undefined; windowHours?: number | undefined },
  scope: WebhookScope,
): Promise<{ object: 'list'; endpoints: EndpointHealth[] }> {
  const windowHours = input.windowHours ?? 24;
  if (!(windowHours > 0 && windowHours <= 24 * 90)) throw invalid('window_hours', 'must be between 0 and 2160');
  const from = new Date(clock.now().getTime() - windowHours * 3_600_000).toISOString();
  let q = db
    .selectFrom('webhook_endpoints as w')
    .innerJoin('integrations as i', 'i.id', 'w.integration_id')
    .selectAll('w')
    .select('i.merchant_id');
  if (input.endpointId) q = q.where('w.id', '=', input.endpointId);
  if (input.integrationId) q = q.where('w.integration_id', '=', input.integrationId);
  if (scope.merchantId !== null) q = q.where('i.merchant_id', '=', scope.merchantId);
  const endpoints = await q.orderBy('w.created_at').execute();
  if (input.endpointId && endpoints.length === 0) throw notFound(`webhook endpoint ${input.endpointId}`);
  const out: EndpointHealth[] = [];
  for (const e of endpoints) {
    const counts = await db
      .selectFrom('webhook_deliveries as d')
      .select([deliveryStatusSql.as('status'), (eb) => eb.fn.countAll<number>().as('n'), (eb) => eb.fn.min('d.created_at').as('oldest')])
      .where('d.endpoint_id', '=', e.id)
      .groupBy(deliveryStatusSql)
      .execute();
    const n = (s: string) => Number(counts.find((c) => c.status === s)?.n ?? 0);
    const win = await db
      .selectFrom('webhook_delivery_attempts')
      .select((eb) => [
        eb.fn.countAll<number>().as('total'),
        eb.fn.sum<number>(eb.case().when('outcome', '=', 'succeeded').then(1).else(0).end()).as('ok'),
        eb.fn.avg<number>('latency_ms').as('avg'),
        eb.fn.max('latency_ms').as('max'),
      ])
      .where('endpoint_id', '=', e.id)
      .where('started_at', '>=', from)
      .executeTakeFirstOrThrow();
    const lastOk = await db
      .selectFrom('webhook_delivery_attempts')
      .select(['seq', 'started_at'])
      .where('endpoint_id', '=', e.id)
      .where('outcome', '=', 'succeeded')
      .orderBy('seq', 'desc')
      .limit(1)
      .executeTakeFirst();
    const lastFail = await db
      .selectFrom('webhook_delivery_attempts')
      .select(['started_at', 'error'])
      .where('endpoint_id', '=', e.id)
      .where('outcome', '=', 'failed')
      .orderBy('seq', 'desc')
      .limit(1)
      .executeTakeFirst();
    const streak = await db
      .selectFrom('webhook_delivery_attempts')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('endpoint_id', '=', e.id)
      .where('outcome', '=', 'failed')
      .where('seq', '>', lastOk?.seq ?? 0)
      .executeTakeFirstOrThrow();
    const total = Number(win.total);
    const ok = Number(win.ok ?? 0);
    out.push({
      endpoint_id: e.id,
      integration_id: e.integration_id,
      merchant_id: e.merchant_id,
      url: e.url,
      status: e.status,
      disabled_reason: e.disabled_reason,
      previous_secret_expires_at: e.previous_secret ? e.previous_secret_expires_at : null,
      deliveries: { pending: n('pending'), held: n('held'), succeeded: n('succeeded'), failed: n('failed') },
      oldest_pending_at: counts.find((c) => c.status === 'pending')?.oldest ?? null,
      oldest_held_at: counts.find((c) => c.status === 'held')?.oldest ?? null,
      window_hours: windowHours,
      attempts_in_window: total,
      succeeded_in_window: ok,
      success_rate: total > 0 ? ok / total : null,
      avg_latency_ms: win.avg === null ? null : Math.round(Number(win.avg)),
      max_latency_ms: win.max === null ? null : Number(win.max),
      consecutive_failures: Number(streak.n),
      last_success_at: lastOk?.started_at ?? null,
      last_failure_at: lastFail?.started_at ?? null,
      last_error: lastFail?.error ?? null,
    });
  }
  return { object: 'list', endpoints: out };
}

