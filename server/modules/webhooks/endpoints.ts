import type { Db } from '../../db/database';
import type { WebhookEndpointsTable } from '../../db/schema';
import type { Clock } from '../../lib/clock';
import { AppError, invalid } from '../../lib/errors';
import type { IdGenerator } from '../../lib/ids';
import { holdPendingDeliveries, releaseHeldDeliveries } from './hold';
import type { Outbox } from './outbox';
import type { WebhookScope } from './scope';
import { newWebhookSecret } from './signing';
import { visibleEndpoint } from './webhooks.repository';
import type { EnabledEndpoint, RotatedSecret, WebhookEndpoint } from '../../../shared/schemas/webhooks';

/**
 * Endpoint operations of the back office and the CLI (documented in webhooks.service.ts,
 * which re-exports them): secret rotation, disable (deliveries held) and enable (held
 * deliveries released, sent in event order). Health is in health.ts.
 */
const DEFAULT_ROTATION_OVERLAP_HOURS = 24;
const MAX_ROTATION_OVERLAP_HOURS = 168;

const endpointView = (e: WebhookEndpointsTable): WebhookEndpoint => ({
  id: e.id,
  integration_id: e.integration_id,
  url: e.url,
  status: e.status,
  disabled_reason: e.disabled_reason,
  previous_secret_expires_at: e.previous_secret ? e.previous_secret_expires_at : null,
  created_at: e.created_at,
  updated_at: e.updated_at,
});

export async function rotateEndpointSecret(
  db: Db,
  clock: Clock,
  ids: IdGenerator,
  endpointId: string,
  input: { overlapHours?: number | undefined },
  scope: WebhookScope,
): Promise<RotatedSecret> {
  const overlapHours = input.overlapHours ?? DEFAULT_ROTATION_OVERLAP_HOURS;
  if (!(overlapHours >= 0 && overlapHours <= MAX_ROTATION_OVERLAP_HOURS)) throw invalid('overlap_hours', `must be between 0 and ${MAX_ROTATION_OVERLAP_HOURS}`);
  const endpoint = await visibleEndpoint(db, endpointId, scope);
  const now = clock.now();
  const secret = newWebhookSecret(ids);
  const expires = overlapHours > 0 ? new Date(now.getTime() + overlapHours * 3_600_000).toISOString() : null;
  const updated = await db
    .updateTable('webhook_endpoints')
    .set({ secret, previous_secret: expires ? endpoint.secret : null, previous_secret_expires_at: expires, updated_at: now.toISOString() })
    .where('id', '=', endpointId)
    .where('secret', '=', endpoint.secret) // two rotations racing: one wins, the other retries
    .executeTakeFirst();
  if (Number(updated.numUpdatedRows) !== 1) throw new AppError('STATE_CONFLICT', 'the secret was rotated at the same moment by someone else; try again');
  return { endpoint_id: endpointId, secret, previous_secret_expires_at: expires };
}

export async function disableEndpoint(db: Db, clock: Clock, endpointId: string, reason: string, scope: WebhookScope): Promise<WebhookEndpoint> {
  const text = reason.trim();
  if (!text) throw invalid('reason', 'must not be empty');
  await visibleEndpoint(db, endpointId, scope);
  const now = clock.now();
  await db.transaction().execute(async (trx) => {
    await trx
      .updateTable('webhook_endpoints')
      .set({ status: 'disabled', disabled_reason: text.slice(0, 300), updated_at: now.toISOString() })
      .where('id', '=', endpointId)
      .execute();
    // In-flight attempts finish and record themselves (held if they fail); the rest are held now.
    await holdPendingDeliveries(trx, endpointId, text.slice(0, 300), now);
  });
  return endpointView(await visibleEndpoint(db, endpointId, scope));
}

/** `outbox`: the process's outbox, whose dispatchers then send at once (others find the rows by polling). */
export async function enableEndpoint(db: Db, clock: Clock, endpointId: string, scope: WebhookScope, outbox?: Pick<Outbox, 'notify'>): Promise<EnabledEndpoint> {
  await visibleEndpoint(db, endpointId, scope);
  const now = clock.now();
  const released = await db.transaction().execute(async (trx) => {
    await trx.updateTable('webhook_endpoints').set({ status: 'active', disabled_reason: null, updated_at: now.toISOString() }).where('id', '=', endpointId).execute();
    return releaseHeldDeliveries(trx, endpointId, now);
  });
  if (released > 0) outbox?.notify();
  return { ...endpointView(await visibleEndpoint(db, endpointId, scope)), released_deliveries: released };
}
