import type { QueryCreator } from 'kysely';
import type { Db } from '../../db/database';
import type { Database } from '../../db/schema';
import { precompiled } from '../../db/precompiled';

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
 * The read of the currency an invoice's recorded lines are billed in (no row when it has none yet); on
 * PostgreSQL also the select of session create's one statement (domain/session-transitions.ts openInvoiceSession).
 */
export const lineCurrencyQuery = (db: QueryCreator<Database>, p: { merchantId: string; mode: 'test' | 'live'; invoiceRef: string }) =>
  db.selectFrom('invoice_lines').select('currency').where('merchant_id', '=', p.merchantId).where('mode', '=', p.mode).where('invoice_ref', '=', p.invoiceRef).limit(1);
const currencyOfInvoice = precompiled(lineCurrencyQuery);

/** The currency an invoice's recorded lines are billed in, or undefined when it has none yet (`q` may be a transaction). Compiled once: SQLite's session create runs it on every create. */
export async function invoiceCurrency(q: Db, key: InvoiceKey & { mode: 'test' | 'live' }): Promise<string | undefined> {
  const [row] = await currencyOfInvoice(q, { merchantId: key.merchantId, mode: key.mode, invoiceRef: key.invoiceRef });
  return row?.currency;
}
