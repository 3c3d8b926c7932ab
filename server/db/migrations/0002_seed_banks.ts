import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';

// Staging seed: Ghanaian banks and branches where payers can deposit cash slips.
// Admins edit these in the back office; this migration only runs once per database.
const SEED: Array<{ name: string; code: string; branches: Array<[string, string]> }> = [
  { name: 'GCB Bank', code: 'GCB', branches: [['High Street, Accra', 'GCB-ACC-HS'], ['Adum, Kumasi', 'GCB-KSI-ADM'], ['Takoradi Market Circle', 'GCB-TKD-MKT'], ['Tamale Main', 'GCB-TML-MN']] },
  { name: 'Ecobank Ghana', code: 'ECO', branches: [['Ridge, Accra', 'ECO-ACC-RDG'], ['Tema Community 1', 'ECO-TMA-C1'], ['Kejetia, Kumasi', 'ECO-KSI-KJT']] },
  { name: 'Absa Bank Ghana', code: 'ABSA', branches: [['Osu, Accra', 'ABSA-ACC-OSU'], ['Cape Coast', 'ABSA-CCT-MN'], ['Ho Main', 'ABSA-HO-MN']] },
  { name: 'Stanbic Bank Ghana', code: 'SBG', branches: [['Airport City, Accra', 'SBG-ACC-APT'], ['Harper Road, Kumasi', 'SBG-KSI-HRP']] },
  { name: 'Fidelity Bank Ghana', code: 'FBL', branches: [['Ridge Towers, Accra', 'FBL-ACC-RT'], ['Sunyani', 'FBL-SNY-MN'], ['Koforidua', 'FBL-KFD-MN']] },
  { name: 'CalBank', code: 'CAL', branches: [['Independence Avenue, Accra', 'CAL-ACC-IND'], ['Bolgatanga', 'CAL-BLG-MN']] },
];

export async function up(db: Kysely<unknown>): Promise<void> {
  const now = new Date().toISOString();
  for (const bank of SEED) {
    const bankId = randomUUID();
    await sql`INSERT INTO banks (id, name, code, active, created_at) VALUES (${bankId}, ${bank.name}, ${bank.code}, 1, ${now})`.execute(db);
    for (const [name, code] of bank.branches) {
      await sql`INSERT INTO branches (id, bank_id, name, code, active, created_at) VALUES (${randomUUID()}, ${bankId}, ${name}, ${code}, 1, ${now})`.execute(db);
    }
  }
}
