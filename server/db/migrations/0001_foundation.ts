import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE merchants (
      id TEXT PRIMARY KEY,
      name TEXT NOT NULL UNIQUE,
      created_at TEXT NOT NULL
    ) STRICT`.execute(db);

  await sql`
    CREATE TABLE integrations (
      id TEXT PRIMARY KEY,
      merchant_id TEXT NOT NULL REFERENCES merchants(id),
      name TEXT NOT NULL,
      mode TEXT NOT NULL CHECK (mode IN ('test','live')),
      allowed_rails TEXT NOT NULL,
      card_collection_mode TEXT NOT NULL CHECK (card_collection_mode IN ('direct_card','test_simulation')),
      created_at TEXT NOT NULL,
      disabled_at TEXT
    ) STRICT`.execute(db);
  await sql`CREATE INDEX integrations_merchant ON integrations(merchant_id)`.execute(db);

  await sql`
    CREATE TABLE api_keys (
      id TEXT PRIMARY KEY,
      integration_id TEXT NOT NULL REFERENCES integrations(id),
      prefix TEXT NOT NULL,
      key_hash TEXT NOT NULL UNIQUE,
      mode TEXT NOT NULL CHECK (mode IN ('test','live')),
      created_at TEXT NOT NULL,
      last_used_at TEXT,
      revoked_at TEXT
    ) STRICT`.execute(db);
  await sql`CREATE INDEX api_keys_integration ON api_keys(integration_id)`.execute(db);

  await sql`
    CREATE TABLE webhook_endpoints (
      id TEXT PRIMARY KEY,
      integration_id TEXT NOT NULL REFERENCES integrations(id),
      url TEXT NOT NULL,
      secret TEXT NOT NULL,
      previous_secret TEXT,
      previous_secret_expires_at TEXT,
      status TEXT NOT NULL CHECK (status IN ('active','disabled')),
      disabled_reason TEXT,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    ) STRICT`.execute(db);
  await sql`CREATE INDEX webhook_endpoints_integration ON webhook_endpoints(integration_id)`.execute(db);

  await sql`
    CREATE TABLE revenue_lines (
      id TEXT PRIMARY KEY,
      merchant_id TEXT NOT NULL REFERENCES merchants(id),
      code TEXT NOT NULL,
      name TEXT NOT NULL,
      active INTEGER NOT NULL CHECK (active IN (0,1)),
      source TEXT NOT NULL,
      last_synced_at TEXT NOT NULL,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      UNIQUE (merchant_id, code)
    ) STRICT`.execute(db);

  await sql`
    CREATE TABLE revenue_line_syncs (
      id TEXT PRIMARY KEY,
      merchant_id TEXT NOT NULL REFERENCES merchants(id),
      integration_id TEXT REFERENCES integrations(id),
      created INTEGER NOT NULL,
      updated INTEGER NOT NULL,
      reactivated INTEGER NOT NULL,
      deactivated INTEGER NOT NULL,
      unchanged INTEGER NOT NULL,
      total INTEGER NOT NULL,
      error_count INTEGER NOT NULL,
      created_at TEXT NOT NULL
    ) STRICT`.execute(db);
  await sql`CREATE INDEX revenue_line_syncs_merchant ON revenue_line_syncs(merchant_id, created_at)`.execute(db);

  await sql`
    CREATE TABLE invoice_lines (
      id TEXT PRIMARY KEY,
      merchant_id TEXT NOT NULL REFERENCES merchants(id),
      invoice_ref TEXT NOT NULL,
      code TEXT NOT NULL,
      name TEXT NOT NULL,
      amount_minor INTEGER NOT NULL CHECK (amount_minor >= 1),
      currency TEXT NOT NULL,
      remitted INTEGER NOT NULL DEFAULT 0 CHECK (remitted IN (0,1)),
      remitted_at TEXT,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      UNIQUE (merchant_id, invoice_ref, code)
    ) STRICT`.execute(db);

  await sql`
    CREATE TABLE checkout_sessions (
      id TEXT PRIMARY KEY,
      merchant_id TEXT NOT NULL REFERENCES merchants(id),
      integration_id TEXT NOT NULL REFERENCES integrations(id),
      status TEXT NOT NULL CHECK (status IN ('open','pending','success','failed','expired')),
      amount_minor INTEGER NOT NULL CHECK (amount_minor >= 1),
      currency TEXT NOT NULL,
      invoice_ref TEXT NOT NULL,
      description TEXT,
      customer_name TEXT,
      customer_email TEXT,
      callback_url TEXT,
      metadata TEXT NOT NULL DEFAULT '{}',
      paid_rail TEXT,
      expires_at TEXT NOT NULL,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      finalized_at TEXT
    ) STRICT`.execute(db);
  await sql`CREATE INDEX checkout_sessions_merchant_invoice ON checkout_sessions(merchant_id, invoice_ref)`.execute(db);
  await sql`CREATE INDEX checkout_sessions_merchant_created ON checkout_sessions(merchant_id, created_at)`.execute(db);
  await sql`CREATE INDEX checkout_sessions_open_expiry ON checkout_sessions(expires_at) WHERE status IN ('open','pending')`.execute(db);

  await sql`
    CREATE TABLE idempotency_keys (
      integration_id TEXT NOT NULL REFERENCES integrations(id),
      key TEXT NOT NULL,
      method TEXT NOT NULL,
      path TEXT NOT NULL,
      fingerprint TEXT NOT NULL,
      state TEXT NOT NULL CHECK (state IN ('in_flight','completed')),
      response_status INTEGER,
      response_body TEXT,
      created_at TEXT NOT NULL,
      expires_at TEXT NOT NULL,
      PRIMARY KEY (integration_id, key)
    ) STRICT`.execute(db);
  await sql`CREATE INDEX idempotency_keys_expiry ON idempotency_keys(expires_at)`.execute(db);

  await sql`
    CREATE TABLE banks (
      id TEXT PRIMARY KEY,
      name TEXT NOT NULL,
      code TEXT NOT NULL UNIQUE,
      active INTEGER NOT NULL DEFAULT 1 CHECK (active IN (0,1)),
      created_at TEXT NOT NULL
    ) STRICT`.execute(db);

  await sql`
    CREATE TABLE branches (
      id TEXT PRIMARY KEY,
      bank_id TEXT NOT NULL REFERENCES banks(id),
      name TEXT NOT NULL,
      code TEXT NOT NULL,
      active INTEGER NOT NULL DEFAULT 1 CHECK (active IN (0,1)),
      created_at TEXT NOT NULL,
      UNIQUE (bank_id, code)
    ) STRICT`.execute(db);

  await sql`
    CREATE TABLE staff_users (
      id TEXT PRIMARY KEY,
      username TEXT NOT NULL UNIQUE COLLATE NOCASE,
      password_hash TEXT NOT NULL,
      role TEXT NOT NULL CHECK (role IN ('teller','supervisor','finance','admin')),
      branch_id TEXT REFERENCES branches(id),
      merchant_id TEXT REFERENCES merchants(id),
      created_at TEXT NOT NULL,
      disabled_at TEXT
    ) STRICT`.execute(db);
}
