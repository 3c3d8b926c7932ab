import type { Db } from '../../db/database';
import { precompiled } from '../../db/precompiled';
import type { CheckoutSessionsTable } from '../../db/schema';

const byIdAndMerchant = precompiled((db, p: { id: string; merchantId: string }) =>
  db.selectFrom('checkout_sessions').selectAll().where('id', '=', p.id).where('merchant_id', '=', p.merchantId),
);

/** One session by id, only when it belongs to this merchant (`q` may be a transaction). Compiled once: session_get's query. */
export async function findMerchantSession(q: Db, merchantId: string, id: string): Promise<CheckoutSessionsTable | undefined> {
  return (await byIdAndMerchant(q, { id, merchantId }))[0];
}
