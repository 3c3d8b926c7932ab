import type { Db } from '../../db/database';
import { AppError, notFound } from '../../lib/errors';
import type { StaffContext } from '../auth';

/**
 * Which merchant's data a call reads. A finance user is bound to one merchant and sees only
 * it: naming another answers 404 NOT_FOUND, as if it did not exist. An admin is bound to
 * none and must name it (`merchant_id`), else 400 MERCHANT_ID_REQUIRED.
 */
export async function merchantScope(db: Db, staff: StaffContext, requested: string | undefined): Promise<string> {
  if (staff.role === 'finance') {
    if (!staff.merchantId) throw new AppError('FORBIDDEN', 'this finance user is not bound to a merchant; ask an admin to bind it');
    if (requested && requested !== staff.merchantId) throw notFound(`merchant ${requested}`);
    return staff.merchantId;
  }
  if (staff.role === 'admin') {
    if (!requested) throw new AppError('MERCHANT_ID_REQUIRED', 'merchant_id: an admin is not bound to a merchant; name one with ?merchant_id=');
    const m = await db.selectFrom('merchants').select('id').where('id', '=', requested).executeTakeFirst();
    if (!m) throw notFound(`merchant ${requested}`);
    return requested;
  }
  throw new AppError('FORBIDDEN', `a ${staff.role} may not read merchant finance data`);
}
