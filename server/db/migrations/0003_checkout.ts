import { sql, type Kysely } from 'kysely';

// Frozen: hosted checkout (fee rules, payment attempts, cash slips and deposits), the
// session history and the outbox of terminal events.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE fee_rules (
      id TEXT PRIMARY KEY,
      integration_id TEXT NOT NULL REFERENCES integrations(id),
      rail TEXT NOT NULL CHECK (rail IN ('momo','card','bank_transfer','cash')),
      percent_bps INTEGER NOT NULL CHECK (percent_bps BETWEEN 0 AND 10000),
      fixed_minor INTEGER NOT NULL CHECK (fixed_minor >= 0),
      cap_minor INTEGER CHECK (cap_minor IS NULL OR cap_minor >= 0),
      bearer TEXT NOT NULL CHECK (bearer IN ('payer','merchant')),
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      UNIQUE (integration_id, rail)
    ) STRICT`.execute(db);

  await sql`
    CREATE TABLE payment_attempts (
      id TEXT PRIMARY KEY,
      session_id TEXT NOT NULL REFERENCES checkout_sessions(id),
      rail TEXT NOT NULL CHECK (rail IN ('momo','card','bank_transfer','cash')),
      provider TEXT NOT NULL,
      provider_reference TEXT NOT NULL,
      status TEXT NOT NULL CHECK (status IN ('pending','succeeded','declined','expired')),
      raw_status TEXT NOT NULL,
      decline_reason TEXT,
      base_minor INTEGER NOT NULL,
      fee_minor INTEGER NOT NULL,
      amount_charged_minor INTEGER NOT NULL,
      currency TEXT NOT NULL,
      operator TEXT,
      phone TEXT,
      phone_last4 TEXT,
      account_name TEXT,
      payment_reference TEXT UNIQUE,
      card_brand TEXT,
      card_last4 TEXT,
      scenario TEXT NOT NULL DEFAULT 'normal',
      resend_count INTEGER NOT NULL DEFAULT 0,
      code_sent_at TEXT,
      prompt_expires_at TEXT,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      finalized_at TEXT
    ) STRICT`.execute(db);
  await sql`CREATE INDEX payment_attempts_session ON payment_attempts(session_id, created_at)`.execute(db);
  await sql`CREATE INDEX payment_attempts_pending ON payment_attempts(prompt_expires_at) WHERE status = 'pending'`.execute(db);

  await sql`
    CREATE TABLE cash_slips (
      id TEXT PRIMARY KEY,
      token TEXT NOT NULL UNIQUE,
      reference TEXT NOT NULL UNIQUE,
      session_id TEXT NOT NULL REFERENCES checkout_sessions(id),
      amount_minor INTEGER NOT NULL CHECK (amount_minor >= 1),
      base_minor INTEGER NOT NULL,
      fee_minor INTEGER NOT NULL,
      currency TEXT NOT NULL,
      status TEXT NOT NULL CHECK (status IN ('active','under_review','used','voided','expired')),
      expires_at TEXT NOT NULL,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    ) STRICT`.execute(db);
  await sql`CREATE INDEX cash_slips_session ON cash_slips(session_id, status)`.execute(db);
  // The database itself refuses a second payable slip for one session.
  await sql`CREATE UNIQUE INDEX cash_slips_one_payable ON cash_slips(session_id) WHERE status IN ('active','under_review')`.execute(db);

  await sql`
    CREATE TABLE cash_deposits (
      id TEXT PRIMARY KEY,
      slip_id TEXT NOT NULL REFERENCES cash_slips(id),
      session_id TEXT NOT NULL REFERENCES checkout_sessions(id),
      amount_minor INTEGER NOT NULL,
      currency TEXT NOT NULL,
      branch_id TEXT REFERENCES branches(id),
      note TEXT,
      status TEXT NOT NULL CHECK (status IN ('under_review','approved','rejected')),
      recorded_by TEXT NOT NULL REFERENCES staff_users(id),
      reviewed_by TEXT REFERENCES staff_users(id),
      review_reason TEXT,
      created_at TEXT NOT NULL,
      reviewed_at TEXT
    ) STRICT`.execute(db);
  await sql`CREATE INDEX cash_deposits_status ON cash_deposits(status, created_at)`.execute(db);
  await sql`CREATE UNIQUE INDEX cash_deposits_one_open ON cash_deposits(slip_id) WHERE status = 'under_review'`.execute(db);

  await sql`
    CREATE TABLE session_history (
      id TEXT PRIMARY KEY,
      session_id TEXT NOT NULL REFERENCES checkout_sessions(id),
      from_status TEXT NOT NULL,
      to_status TEXT NOT NULL,
      cause TEXT NOT NULL,
      at TEXT NOT NULL
    ) STRICT`.execute(db);
  await sql`CREATE INDEX session_history_session ON session_history(session_id, at)`.execute(db);

  await sql`
    CREATE TABLE events (
      id TEXT PRIMARY KEY,
      type TEXT NOT NULL,
      session_id TEXT NOT NULL REFERENCES checkout_sessions(id),
      integration_id TEXT NOT NULL REFERENCES integrations(id),
      payload TEXT NOT NULL,
      created_at TEXT NOT NULL
    ) STRICT`.execute(db);
  await sql`CREATE INDEX events_integration ON events(integration_id, created_at)`.execute(db);
  // Each terminal state is entered once: one event per session and type.
  await sql`CREATE UNIQUE INDEX events_one_per_session_type ON events(session_id, type)`.execute(db);
}
