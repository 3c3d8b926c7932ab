import { sql } from 'kysely';

/**
 * Shared by the webhook services. Scope: a staff member bound to a merchant passes that
 * merchant's id and sees only its integrations; `null` (admin, CLI) sees everything.
 */
export interface WebhookScope {
  merchantId: string | null;
}

export const ALL_MERCHANTS: WebhookScope = { merchantId: null };

export type DeliveryStatusView = 'pending' | 'held' | 'succeeded' | 'failed';

/**
 * A delivery's status as shown (`d` = webhook_deliveries): `held` while its endpoint is
 * disabled (server/modules/webhooks/hold.ts), else the stored status. A released delivery waiting
 * for its turn is `pending` again.
 */
export const deliveryStatusSql = sql<DeliveryStatusView>`(case when d.held_at is not null and d.next_attempt_at is null then 'held' else d.status end)`;
