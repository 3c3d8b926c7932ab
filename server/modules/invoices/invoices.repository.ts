import type { Db } from '../../db/database';

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
