import type { Db } from '../../db/database';
import { AppError, invalid } from '../../lib/errors';
import { minorToDecimal } from '../../../shared/money';
import { csvText } from '../../lib/csv';
import { iso } from '../../lib/iso-param';
import { sessionBase } from './finance.service';
import { settlements } from './finance-settlement';

/**
 * Each amount appears twice, in minor units and as a decimal, under matching names:
 * `amount` is the base (invoice) amount, `fee` the fee, `collected` what the payer paid.
 */
export const PAYMENT_CSV_COLUMNS = [
  'paid_at',
  'session_id',
  'merchant',
  'invoice_ref',
  'rail',
  'currency',
  'amount_minor',
  'fee_minor',
  'collected_minor',
  'amount',
  'fee',
  'collected',
  'payment_reference',
  'deposit_id',
  'recorded_by',
  'approved_by',
  'customer_name',
] as const;

/**
 * Every payment of the merchant whose session succeeded in [from, to): one row per session,
 * with the attempt or cash deposit that paid it (finance-settlement.ts, as on every screen).
 */
export async function paymentsCsv(db: Db, merchantId: string, fromRaw: string, toRaw: string): Promise<string> {
  const from = iso('from', fromRaw)!;
  const to = iso('to', toRaw)!;
  if (from >= to) throw invalid('to', 'must be after from');
  if (Date.parse(to) - Date.parse(from) > 367 * 86_400_000) throw new AppError('INVALID_ARGUMENT', 'to: the range may span at most one year');
  const sessions = await sessionBase(db)
    .where('s.merchant_id', '=', merchantId)
    .where('s.status', '=', 'success')
    .where('s.finalized_at', '>=', from)
    .where('s.finalized_at', '<', to)
    .orderBy('s.finalized_at')
    .orderBy('s.id')
    .execute();
  const paid = await settlements(
    db,
    sessions.map((s) => s.id),
  );
  const rows = sessions.map((s) => {
    const p = paid.get(s.id);
    const collected = p?.collected_minor ?? s.amount_minor;
    const fee = p?.fee_minor ?? 0;
    const row: Array<string | number | null> = [
      s.finalized_at,
      s.id,
      s.merchant_name,
      s.invoice_ref,
      s.paid_rail,
      s.currency,
      s.amount_minor,
      fee,
      collected,
      minorToDecimal(s.amount_minor, s.currency),
      minorToDecimal(fee, s.currency),
      minorToDecimal(collected, s.currency),
      p?.reference ?? null,
      p?.deposit?.id ?? null,
      p?.deposit?.recorded_by ?? null,
      p?.deposit?.approved_by ?? null,
      s.customer_name,
    ];
    return row;
  });
  return csvText(PAYMENT_CSV_COLUMNS, rows);
}
