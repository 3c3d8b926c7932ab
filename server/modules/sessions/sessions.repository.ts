import type { Db } from '../../db/database';
import type { CheckoutSessionsTable } from '../../db/schema';

/** One session by id, only when it belongs to this merchant (`q` may be a transaction). */
export function findMerchantSession(q: Db, merchantId: string, id: string): Promise<CheckoutSessionsTable | undefined> {
  return q.selectFrom('checkout_sessions').selectAll().where('id', '=', id).where('merchant_id', '=', merchantId).executeTakeFirst();
}
