import { sql, type Kysely } from 'kysely';

// Frozen. Receipts for people: a cash deposit gets a short receipt number, unique, per branch
// and day (`ACC-RDG-20261129-0042`: bank code, branch code, UTC day, the day's count at the
// branch; `DESK-…` for a deposit recorded without a branch), assigned in the recording
// transaction; deposits recorded before keep none and print their id. Staff get a full name,
// printed on receipts and shown beside reviews (null for accounts made before).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('cash_deposits').addColumn('receipt_no', 'text').execute();
  await db.schema.createIndex('cash_deposits_receipt_no').unique().on('cash_deposits').column('receipt_no').where(sql.ref('receipt_no'), 'is not', null).execute();
  await db.schema.alterTable('staff_users').addColumn('full_name', 'text').execute();
}
