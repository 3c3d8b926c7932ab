import { sql, type Kysely } from 'kysely';

// Frozen: a teller can type the slip's printed reference instead of scanning its token. The
// lookup key is the reference without its leading `PD-` and dashes, with O → 0 and I, L → 1
// (server/lib/slip-reference.ts `slipReferenceKey`); existing slips get theirs here. Only the
// leading `PD-` goes: a reference whose first group ends in PD (PD-QQPD-F1W7) keeps those letters
// (0046 mends the keys written before that was so).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('cash_slips').addColumn('reference_key', 'text').execute();
  await sql`UPDATE cash_slips SET reference_key = ${SLIP_REFERENCE_KEY}`.execute(db);
  // Named for what it is; on PostgreSQL a UNIQUE constraint's index would take this name, so it is an index here too.
  await db.schema.createIndex('cash_slips_reference_key').unique().on('cash_slips').column('reference_key').execute();
}

/** The key of the row's `reference`, as `slipReferenceKey` makes it of a printed reference. */
export const SLIP_REFERENCE_KEY = sql<string>`replace(replace(replace(replace(
  CASE WHEN upper(reference) LIKE 'PD-%' THEN substr(upper(reference), 4) ELSE upper(reference) END,
  '-', ''), 'O', '0'), 'I', '1'), 'L', '1')`;
