import type { Db } from '../../db/database';
import { AppError, invalid } from '../../lib/errors';
import { minorToDecimal } from '../../../shared/money';
import { iso, sessionBase } from './finance.service';
import { settlements } from './finance-settlement';

// ---------------------------------------------------------------- reconciliation export

export const csvCell = (v: string | number | null): string => {
  if (v === null) return '';
  let s = String(v);
  // A cell a spreadsheet would run as a formula is written as text.
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};

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
  const lines = [PAYMENT_CSV_COLUMNS.join(',')];
  for (const s of sessions) {
    const p = paid.get(s.id);
    const collected = p?.collected_minor ?? s.amount_minor;
    const fee = p?.fee_minor ?? 0;
    const row = [
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
    lines.push(row.map(csvCell).join(','));
  }
  return `${lines.join('\r\n')}\r\n`;
}
