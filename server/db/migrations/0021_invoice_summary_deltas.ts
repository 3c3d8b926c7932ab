import type { Kysely } from 'kysely';
import { ddl } from './ddl';

// Frozen. `invoice_summaries` (0017) was upserted in every writer's transaction (about
// 150 µs of a session create on SQLite for the row's index entries; on PostgreSQL concurrent
// creates on one invoice ref conflicted on its row and were retried). Writers now append one
// small row here instead — what their change adds to the ref's summary — and a background job
// folds them into invoice_summaries in small batches (server/jobs/invoice-summary-fold.ts).
// Insertion-ordered by `seq` (SQLite's rowid; an identity on PostgreSQL) with no other index:
// an insert touches one b-tree page, and the fold reads and deletes from the low end.
// - sessions / successes / paid_minor: added to session_count, success_count, paid_minor;
// - first_success_at: a candidate for the MIN; sessions_updated_at: for the MAX;
// - session_id / session_created_at: a session created or moved (a candidate for the latest
//   session, whose status the fold reads again);
// - lines = 1: the ref's lines changed (the fold recomputes the line part from invoice_lines).
export async function up(db: Kysely<unknown>): Promise<void> {
  const { pg, int, table } = ddl(db);
  await table('invoice_summary_deltas')
    .addColumn('seq', int, (c) => (pg ? c.primaryKey().generatedByDefaultAsIdentity() : c.primaryKey()))
    .addColumn('merchant_id', 'text', (c) => c.notNull())
    .addColumn('invoice_ref', 'text', (c) => c.notNull())
    .addColumn('sessions', int, (c) => c.notNull())
    .addColumn('successes', int, (c) => c.notNull())
    .addColumn('paid_minor', int, (c) => c.notNull())
    .addColumn('first_success_at', 'text')
    .addColumn('sessions_updated_at', 'text')
    .addColumn('session_id', 'text')
    .addColumn('session_created_at', 'text')
    .addColumn('lines', int, (c) => c.notNull())
    .execute();
}
