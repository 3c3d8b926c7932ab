import { sql, type Kysely } from 'kysely';

// Frozen: a teller can type the slip's printed reference instead of scanning its token. The
// lookup key is the reference without `PD-` and dashes, with O → 0 and I, L → 1
// (server/lib/slip-reference.ts `slipReferenceKey`); existing slips get theirs here.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE cash_slips ADD COLUMN reference_key TEXT`.execute(db);
  await sql`
    UPDATE cash_slips SET reference_key =
      replace(replace(replace(replace(replace(upper(reference), 'PD-', ''), '-', ''), 'O', '0'), 'I', '1'), 'L', '1')`.execute(db);
  await sql`CREATE UNIQUE INDEX cash_slips_reference_key ON cash_slips(reference_key)`.execute(db);
}
