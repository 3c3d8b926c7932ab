import { sql } from 'kysely';
import type { Db } from '../../db/database';
import type { Clock } from '../../lib/clock';

/**
 * The webhook backlog as an operator watches it (`/metrics`, and `/readyz` when
 * READY_MAX_BACKLOG_AGE_S is set), in one statement over the pending deliveries only:
 * - `due`: pending deliveries whose next attempt time has come (waiting for a dispatcher);
 * - `held`: deliveries kept back while their endpoint is disabled (webhooks/hold.ts);
 * - `failing`: pending deliveries with at least one failed attempt in the current schedule;
 * - `oldestDueAgeS`: how long the oldest due delivery has been due (0 when none is).
 */
export interface WebhookBacklog {
  due: number;
  held: number;
  failing: number;
  oldestDueAgeS: number;
}

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
