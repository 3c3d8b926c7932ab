import { sql, type Kysely } from 'kysely';

// Frozen. The invoice list sorts by billed amount and line count in the invoice's own mode
// (server/modules/finance/finance-invoices.ts, MODE_BILLED and MODE_LINES): an expression over
// both modes' figures, which the (merchant_id, billed_minor) and (merchant_id, line_count)
// indexes of 0017 cannot order. These index the expressions themselves (written exactly as the
// list writes them: SQLite uses an expression index only for the same expression) and replace
// the two column indexes nothing reads any more.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX invoice_summaries_mode_billed ON invoice_summaries (merchant_id, (CASE WHEN line_count > test_line_count THEN billed_minor - test_billed_minor ELSE test_billed_minor END), invoice_ref)`.execute(db);
  await sql`CREATE INDEX invoice_summaries_mode_lines ON invoice_summaries (merchant_id, (CASE WHEN line_count > test_line_count THEN line_count - test_line_count ELSE test_line_count END), invoice_ref)`.execute(db);
  await db.schema.dropIndex('invoice_summaries_billed').ifExists().execute();
  await db.schema.dropIndex('invoice_summaries_line_count').ifExists().execute();
}
