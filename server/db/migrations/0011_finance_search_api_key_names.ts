import { sql, type Kysely } from 'kysely';

// Frozen. Finance search looks payments up by exact provider reference, phone
// last 4 and amount: indexes for those. API keys get an optional name, and their last use is
// kept in its own table so recording it never touches `api_keys` (a write there drops the
// resolved-key cache of every process, see db/database.ts).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('payment_attempts_provider_reference').on('payment_attempts').column('provider_reference').execute();
  await db.schema.createIndex('payment_attempts_phone_last4').on('payment_attempts').column('phone_last4').where(sql.ref('phone_last4'), 'is not', null).execute();
  await db.schema.createIndex('checkout_sessions_merchant_amount').on('checkout_sessions').columns(['merchant_id', 'amount_minor']).execute();
  await db.schema.alterTable('api_keys').addColumn('name', 'text').execute();
  // Not STRICT, as shipped.
  await db.schema
    .createTable('api_key_usage')
    .addColumn('api_key_id', 'text', (c) => c.primaryKey().references('api_keys.id'))
    .addColumn('last_used_at', 'text', (c) => c.notNull())
    .execute();
}
