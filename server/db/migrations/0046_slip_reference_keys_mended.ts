import { sql, type Kysely } from 'kysely';
import { SLIP_REFERENCE_KEY } from './0010_slip_reference_key';

// Frozen. 0010 as first written removed every `PD-` from a reference, not only the leading one,
// so a slip whose first group ends in PD (PD-QQPD-F1W7) was keyed QQF1W7 and could not be found
// by its printed reference. Those keys are written again; every other key is already right.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`UPDATE cash_slips SET reference_key = ${SLIP_REFERENCE_KEY} WHERE substr(upper(reference), 4) LIKE '%PD-%'`.execute(db);
}
