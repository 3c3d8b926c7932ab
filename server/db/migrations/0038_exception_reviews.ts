import type { Kysely } from 'kysely';
import { ddl } from './ddl';

// Frozen. Finance exceptions become work items: one per invoice that does not reconcile (the
// kinds found on it merged). The exceptions themselves are still derived from the invoice's
// payments on every read; this table keeps what a clerk decided about one (resolved or
// ignored, with a note, who and when), together with the invoice's figures at that moment
// (success_count, paid_minor, billed_minor). A later payment or line change moves those
// figures, and the invoice's exception is open again. Reopening is a row with status 'open'.
export async function up(db: Kysely<unknown>): Promise<void> {
  const { int, table, check } = ddl(db);
  await table('exception_reviews')
    .addColumn('merchant_id', 'text', (c) => c.notNull())
    .addColumn('invoice_ref', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(check("status IN ('open', 'resolved', 'ignored')")))
    .addColumn('note', 'text', (c) => c.notNull())
    .addColumn('reviewed_by', 'text', (c) => c.notNull())
    .addColumn('reviewed_by_name', 'text', (c) => c.notNull())
    .addColumn('reviewed_at', 'text', (c) => c.notNull())
    .addColumn('success_count', int, (c) => c.notNull())
    .addColumn('paid_minor', int, (c) => c.notNull())
    .addColumn('billed_minor', int, (c) => c.notNull())
    .addPrimaryKeyConstraint('exception_reviews_pk', ['merchant_id', 'invoice_ref'])
    .execute();
}
