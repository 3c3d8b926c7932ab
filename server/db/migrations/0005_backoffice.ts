import { sql, type Kysely } from 'kysely';

// Frozen: the back office's staff sign-in sessions and the audit trail of staff actions.
export async function up(db: Kysely<unknown>): Promise<void> {
  // A staff bearer token is stored as its SHA-256 only: a copy of the database cannot sign in.
  await sql`
    CREATE TABLE staff_sessions (
      id TEXT PRIMARY KEY,
      staff_id TEXT NOT NULL REFERENCES staff_users(id),
      token_hash TEXT NOT NULL UNIQUE,
      created_at TEXT NOT NULL,
      expires_at TEXT NOT NULL,
      last_seen_at TEXT NOT NULL,
      revoked_at TEXT,
      ip TEXT
    ) STRICT`.execute(db);
  await sql`CREATE INDEX staff_sessions_staff ON staff_sessions(staff_id, created_at)`.execute(db);

  // Failed sign-ins per (username, client address), kept so throttling survives a restart.
  await sql`
    CREATE TABLE staff_login_failures (
      id TEXT PRIMARY KEY,
      throttle_key TEXT NOT NULL,
      at TEXT NOT NULL
    ) STRICT`.execute(db);
  await sql`CREATE INDEX staff_login_failures_key ON staff_login_failures(throttle_key, at)`.execute(db);

  await sql`
    CREATE TABLE audit_log (
      id TEXT PRIMARY KEY,
      at TEXT NOT NULL,
      actor_id TEXT,
      actor_username TEXT NOT NULL,
      actor_role TEXT NOT NULL,
      action TEXT NOT NULL,
      target_type TEXT NOT NULL,
      target_id TEXT,
      merchant_id TEXT,
      before TEXT,
      after TEXT,
      ip TEXT
    ) STRICT`.execute(db);
  await sql`CREATE INDEX audit_log_at ON audit_log(at)`.execute(db);
  await sql`CREATE INDEX audit_log_target ON audit_log(target_type, target_id)`.execute(db);
  // Not editable, by anyone: the database itself refuses to change or remove an entry.
  await sql`
    CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
    BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END`.execute(db);
  await sql`
    CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
    BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END`.execute(db);
}
