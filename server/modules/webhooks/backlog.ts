import { sql } from 'kysely';
import type { Db } from '../../db/database';
import type { Clock } from '../../lib/clock';
import type { WebhookBacklog } from '../../http/metrics';

/** The webhook backlog in one statement over the pending deliveries only (fields: http/metrics.ts). */
export async function webhookBacklog(db: Db, clock: Clock): Promise<WebhookBacklog> {
  const now = clock.now();
  const nowIso = now.toISOString();
  const row = await db
    .selectFrom('webhook_deliveries')
    .select([
      sql<number>`sum(case when next_attempt_at <= ${nowIso} then 1 else 0 end)`.as('due'),
      sql<string | null>`min(case when next_attempt_at <= ${nowIso} then next_attempt_at end)`.as('oldest_due'),
      sql<number>`sum(case when held_at is not null and next_attempt_at is null then 1 else 0 end)`.as('held'),
      sql<number>`sum(case when schedule_step > 0 and next_attempt_at is not null then 1 else 0 end)`.as('failing'),
    ])
    .where('status', '=', 'pending')
    .executeTakeFirst();
  const oldest = row?.oldest_due ? Date.parse(row.oldest_due) : NaN;
  return {
    due: Number(row?.due ?? 0),
    held: Number(row?.held ?? 0),
    failing: Number(row?.failing ?? 0),
    oldestDueAgeS: Number.isFinite(oldest) ? Math.max(0, Math.round((now.getTime() - oldest) / 1000)) : 0,
  };
}
