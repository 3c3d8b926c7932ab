import { sql, type Kysely } from 'kysely';

// Frozen: a teller can type the slip's printed reference instead of scanning its token. The
// lookup key is the reference without `PD-` and dashes, with O → 0 and I, L → 1
// (server/lib/slip-reference.ts `slipReferenceKey`); existing slips get theirs here.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('cash_slips').addColumn('reference_key', 'text').execute();
  await sql`
    UPDATE cash_slips SET reference_key =
      replace(replace(replace(replace(replace(upper(reference), 'PD-', ''), '-', ''), 'O', '0'), 'I', '1'), 'L', '1')`.execute(db);
  // Named for what it is; on PostgreSQL a UNIQUE constraint's index would take this name, so it is an index here too.
  await db.schema.createIndex('cash_slips_reference_key').unique().on('cash_slips').column('reference_key').execute();
}
