import { sql, type Kysely } from 'kysely';
import { ddl } from './ddl';

// Frozen. The audit trail's guards (0005, 0014) are row triggers, and PostgreSQL's TRUNCATE fires
// no row trigger: `TRUNCATE audit_log` would have emptied the trail past every rule. A statement
// trigger refuses it on both audit tables. SQLite has no TRUNCATE (its DELETE without WHERE runs
// the row triggers whenever a table has any), so nothing changes there.
export async function up(db: Kysely<unknown>): Promise<void> {
  if (!ddl(db).pg) return;
  await sql`
    CREATE FUNCTION audit_refuse_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION '% is append-only: TRUNCATE is refused', TG_TABLE_NAME;
    END $$`.execute(db);
  for (const table of ['audit_log', 'audit_prune_marks']) {
    await sql`CREATE TRIGGER ${sql.raw(`${table}_no_truncate`)} BEFORE TRUNCATE ON ${sql.table(table)} FOR EACH STATEMENT EXECUTE FUNCTION audit_refuse_truncate()`.execute(db);
  }
}
