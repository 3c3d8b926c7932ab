import type { Db } from '../../db/database';
import { AppError, invalid } from '../../lib/errors';
import { minorToDecimal } from '../../../shared/money';
import { CSV_TIME_ZONE, csvText } from '../../lib/csv';
import { iso } from '../../lib/iso-param';
import { sessionBase } from './finance.service';
import { settlements } from './finance-settlement';

/**
 * Each amount appears twice, in minor units and as a decimal, under matching names:
 * `amount` is the base (invoice) amount, `fee` the fee, `collected` what the payer paid, `net`
 * what reaches the merchant (collected − fee). `fee_bearer` is who paid the fee: `payer` (added
 * to what they paid), `merchant` (taken from the amount) or empty when there was none.
 */
const PAYMENT_CSV_COLUMNS = [
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
  /** `test` or `live`: a test session's payment is never live money. */
  'mode',
  'fee_bearer',
  'net_minor',
  'net',
  /** Always `UTC`: the zone of every time in the file (`paid_at`, ISO 8601). */
  'time_zone',
] as const;

/** Sessions per query of the export: one batch reads in a few ms however long the range is. */
const EXPORT_BATCH = 200;

/**
 * Every payment of the merchant whose session succeeded in [from, to): one row per session,
 * with the attempt or cash deposit that paid it (finance-settlement.ts, as on every screen).
 * Validates the range at once (a bad one is a 400 before any byte is sent), then yields the
 * CSV EXPORT_BATCH sessions at a time, in (finalized_at, id) order, each batch one short
 * indexed read (checkout_sessions_success_finalized, migration 0013) after the last row of the
 * previous one, and gives the event loop a turn between batches (a year of payments
 * is hundreds of thousands of rows; the whole file was built in memory by one query). Batches
 * are separate reads: a session that succeeds during the export appears if it sorts after the
 * rows already written.
 */
function paymentsCsvStream(db: Db, merchantId: string, fromRaw: string, toRaw: string, batch = EXPORT_BATCH): AsyncGenerator<string> {
  return paymentsCsvBatches(db, paymentsExportRange(merchantId, fromRaw, toRaw), batch);
}

export interface PaymentsExport {
  merchantId: string;
  from: string;
  to: string;
}

/** The export's range, checked: a bad one is a 400 before any byte (and before any worker is asked). */
export function paymentsExportRange(merchantId: string, fromRaw: string, toRaw: string): PaymentsExport {
  const from = iso('from', fromRaw)!;
  const to = iso('to', toRaw)!;
  if (from >= to) throw invalid('to', 'must be after from');
  if (Date.parse(to) - Date.parse(from) > 367 * 86_400_000) throw new AppError('INVALID_ARGUMENT', 'to: the range may span at most one year');
  return { merchantId, from, to };
}

/** The CSV of a checked range (paymentsExportRange), batch by batch. */
export function paymentsCsvBatches(db: Db, range: PaymentsExport, batch = EXPORT_BATCH): AsyncGenerator<string> {
  return batches(db, range.merchantId, range.from, range.to, batch);
}

async function* batches(db: Db, merchantId: string, from: string, to: string, batch: number): AsyncGenerator<string> {
  const header = csvText(PAYMENT_CSV_COLUMNS, []);
  let after: { at: string; id: string } | null = null;
  for (let first = true; ; first = false) {
    let q = sessionBase(db).where('s.merchant_id', '=', merchantId).where('s.status', '=', 'success').where('s.finalized_at', '<', to);
    const last = after;
    q = last
      ? q.where('s.finalized_at', '>=', last.at).where((eb) => eb.or([eb('s.finalized_at', '>', last.at), eb('s.id', '>', last.id)]))
      : q.where('s.finalized_at', '>=', from);
    const sessions = await q.orderBy('s.finalized_at').orderBy('s.id').limit(batch).execute();
    // The header goes out with the first batch: a failing first read is then an error answer, not a cut file.
    if (sessions.length === 0) {
      if (first) yield header;
      return;
    }
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
        s.id.startsWith('cs_test_') ? 'test' : 'live',
        feeBearer(s.amount_minor, fee, collected),
        collected - fee,
        minorToDecimal(collected - fee, s.currency),
        CSV_TIME_ZONE,
      ];
      return row;
    });
    const text = csvText(PAYMENT_CSV_COLUMNS, rows);
    yield first ? text : text.slice(header.length);
    const tail = sessions.at(-1)!;
    after = { at: tail.finalized_at ?? from, id: tail.id };
    if (sessions.length < batch) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Who paid a payment's fee: the payer when it was added to what they paid, else the merchant; null without a fee. */
function feeBearer(baseMinor: number, feeMinor: number, collectedMinor: number): 'payer' | 'merchant' | null {
  if (feeMinor === 0) return null;
  return collectedMinor > baseMinor ? 'payer' : 'merchant';
}

/** The whole export as one string (small ranges, tests). */
export async function paymentsCsv(db: Db, merchantId: string, fromRaw: string, toRaw: string, batch = EXPORT_BATCH): Promise<string> {
  let out = '';
  for await (const chunk of paymentsCsvStream(db, merchantId, fromRaw, toRaw, batch)) out += chunk;
  return out;
}
