import { sql, type Kysely } from 'kysely';

// Frozen. Finance search (issue 15 #8) looks payments up by exact provider reference, phone
// last 4 and amount: indexes for those. API keys get an optional name, and their last use is
// kept in its own table so recording it never touches `api_keys` (a write there drops the
// resolved-key cache of every process, see db/database.ts).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX payment_attempts_provider_reference ON payment_attempts(provider_reference)`.execute(db);
  await sql`CREATE INDEX payment_attempts_phone_last4 ON payment_attempts(phone_last4) WHERE phone_last4 IS NOT NULL`.execute(db);
  await sql`CREATE INDEX checkout_sessions_merchant_amount ON checkout_sessions(merchant_id, amount_minor)`.execute(db);
  await sql`ALTER TABLE api_keys ADD COLUMN name TEXT`.execute(db);
  await sql`
    CREATE TABLE api_key_usage (
      api_key_id TEXT PRIMARY KEY REFERENCES api_keys(id),
      last_used_at TEXT NOT NULL
    )`.execute(db);
}
