import type { QueryCreator } from 'kysely';
import type { Db } from '../../db/database';
import type { Database } from '../../db/schema';

/** An invoice is a (merchant, mode, invoice_ref): a test reference and the same live one are different invoices. */
export interface InvoiceKey {
  merchantId: string;
  /** null means both modes: only the back office's invoice view, which is not mode-aware yet, asks so. */
  mode: 'test' | 'live' | null;
  invoiceRef: string;
}

/** An invoice's lines in the order they were recorded (remitted as a boolean). */
export async function invoiceLines(db: Db, key: InvoiceKey) {
  const rows = await db
    .selectFrom('invoice_lines')
    .select(['code', 'name', 'amount_minor', 'currency', 'remitted'])
    .where('merchant_id', '=', key.merchantId)
    .$if(key.mode !== null, (q) => q.where('mode', '=', key.mode ?? 'test'))
    .where('invoice_ref', '=', key.invoiceRef)
    .orderBy('created_at')
    .orderBy('code')
    .execute();
  return rows.map((r) => ({ ...r, remitted: r.remitted === 1 }));
}

/**
 * The read of the currency an invoice's recorded lines are billed in (no row when it has none yet):
 * the select of PostgreSQL's one-statement session create, and SQLite's read of the other currency
 * after a refused one (domain/session-transitions.ts openInvoiceSession).
 */
export const lineCurrencyQuery = (db: QueryCreator<Database>, p: { merchantId: string; mode: 'test' | 'live'; invoiceRef: string }) =>
  db.selectFrom('invoice_lines').select('currency').where('merchant_id', '=', p.merchantId).where('mode', '=', p.mode).where('invoice_ref', '=', p.invoiceRef).limit(1);
