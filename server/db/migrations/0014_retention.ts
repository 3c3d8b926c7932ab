import { sql, type Kysely } from 'kysely';
import { ddl } from './ddl';

// Frozen. Retention (docs/operations.md).
// - session_history and events get an index on their time, so pruning reads a range;
//   webhook_deliveries one on (created_at, id) for the delivery log's newest-first pages, and
//   an invoice's sessions are read newest first from (merchant_id, invoice_ref, created_at).
// - The audit trail stays append-only for the application: its DELETE trigger now lets a row
//   go only when it is older than a cutoff recorded in `audit_prune_marks`, a table that is
//   itself append-only and refuses a cutoff younger than 365 days (by the database's own
//   clock). So the only way to remove an entry is `db:prune`'s: record when and up to when,
//   then delete rows past that cutoff; no UPDATE is ever allowed, and nothing recent can go.
export async function up(db: Kysely<unknown>): Promise<void> {
  const { pg, table } = ddl(db);
  await db.schema.createIndex('session_history_at').on('session_history').column('at').execute();
  await db.schema.createIndex('events_created').on('events').column('created_at').execute();
  // An invoice's sessions newest first (its detail page and its latest status) without sorting
  // them all: 100,000 sessions of one invoice ref took 2.25 s. Replaces (merchant_id, invoice_ref).
  await db.schema.createIndex('checkout_sessions_merchant_invoice_created').on('checkout_sessions').columns(['merchant_id', 'invoice_ref', 'created_at']).execute();
  await db.schema.dropIndex('checkout_sessions_merchant_invoice').execute();
  // The invoice list's per-ref sums of lines (the unique key has `mode` between the two).
  await db.schema.createIndex('invoice_lines_merchant_ref').on('invoice_lines').columns(['merchant_id', 'invoice_ref']).execute();
  // The delivery log's newest-first page (and its cursor) walks this instead of sorting every delivery.
  await db.schema.createIndex('webhook_deliveries_created').on('webhook_deliveries').columns(['created_at', 'id']).execute();
  await table('audit_prune_marks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('cutoff', 'text', (c) => c.notNull())
    .addColumn('recorded_at', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .execute();
  if (pg) {
    await sql`
      CREATE FUNCTION audit_prune_mark_check() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP <> 'INSERT' THEN RAISE EXCEPTION 'audit_prune_marks is append-only'; END IF;
        IF NEW.cutoff > to_char((now() AT TIME ZONE 'UTC') - interval '365 days', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') THEN
          RAISE EXCEPTION 'audit entries are kept at least 365 days';
        END IF;
        RETURN NEW;
      END $$`.execute(db);
    await sql`CREATE TRIGGER audit_prune_marks_guard BEFORE INSERT OR UPDATE OR DELETE ON audit_prune_marks FOR EACH ROW EXECUTE FUNCTION audit_prune_mark_check()`.execute(db);
    await sql`
      CREATE FUNCTION audit_log_delete_past_cutoff() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF OLD.at < (SELECT max(cutoff) FROM audit_prune_marks) THEN RETURN OLD; END IF;
        RAISE EXCEPTION 'audit_log is append-only';
      END $$`.execute(db);
    await sql`DROP TRIGGER audit_log_no_delete ON audit_log`.execute(db);
    await sql`CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log FOR EACH ROW EXECUTE FUNCTION audit_log_delete_past_cutoff()`.execute(db);
  } else {
    await sql`
      CREATE TRIGGER audit_prune_marks_recent BEFORE INSERT ON audit_prune_marks
      WHEN NEW.cutoff > strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-365 days')
      BEGIN SELECT RAISE(ABORT, 'audit entries are kept at least 365 days'); END`.execute(db);
    await sql`
      CREATE TRIGGER audit_prune_marks_no_update BEFORE UPDATE ON audit_prune_marks
      BEGIN SELECT RAISE(ABORT, 'audit_prune_marks is append-only'); END`.execute(db);
    await sql`
      CREATE TRIGGER audit_prune_marks_no_delete BEFORE DELETE ON audit_prune_marks
      BEGIN SELECT RAISE(ABORT, 'audit_prune_marks is append-only'); END`.execute(db);
    await sql`DROP TRIGGER audit_log_no_delete`.execute(db);
    await sql`
      CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
      WHEN OLD.at >= coalesce((SELECT max(cutoff) FROM audit_prune_marks), '')
      BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END`.execute(db);
  }
}
