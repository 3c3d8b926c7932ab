import { createHmac, randomBytes } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../engine';
import { ddl } from './ddl';

// Frozen.
// 1. The sign-in throttle stored `user:<username as typed, lower-cased>|<address>`: a password
//    typed into the username field stayed in the table (and its backups) until a later failure
//    pruned it. It now stores an HMAC-SHA256 of the username under a random secret of this
//    database (`server_secrets`), the username normalised as modules/auth/username.ts does
//    (NFKC, then lower case); the rows already there are rewritten the same way, so a lockout
//    in progress carries over.
// 2. PostgreSQL: the session search's trigram indexes (0026) hold the merchant too, as the expression
//    the search filters by (`merchant_id || ''`, which no other index serves), so a search reads
//    only its merchant's entries: with another merchant's 300,000 sessions, a text that has no
//    trigram of its own, or one whose trigrams every session of the other merchant has, read and
//    rechecked all of them (0.45-1.5 s) before the merchant filter. PostgreSQL 13 and later skip
//    a trigram key that would scan the whole index when the merchant key can drive the scan.
//    The day walk's probes (a month, a day) read only the merchant's entries as well. The indexes
//    keep their names. Upgrade cost: the two GIN indexes built again (about as long as 0026's).
// 3. Invoice summaries (0017) counted test and live sessions and lines together, so a sandbox card
//    payment on a test session showed a live invoice as paid. They now also keep the test-mode part
//    of each count (the session id carries the mode, `cs_test_…`), filled here from the base
//    tables; the back office shows an invoice's own mode's money only.
const secretOf = () => randomBytes(32).toString('base64url');
const fold = (typed: string) => typed.trim().normalize('NFKC').toLowerCase().normalize('NFKC');

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const { table, int } = ddl(db);
  await table('server_secrets').addColumn('name', 'text', (c) => c.primaryKey()).addColumn('value', 'text', (c) => c.notNull()).execute();
  const secret = secretOf();
  await db.insertInto('server_secrets').values({ name: 'login_throttle_hmac', value: secret }).execute();
  const rows = (await db.selectFrom('staff_login_failures').select(['id', 'throttle_key']).where('throttle_key', 'like', 'user:%').execute()) as Array<{ id: string; throttle_key: string }>;
  for (const row of rows) {
    const bar = row.throttle_key.lastIndexOf('|');
    if (bar < 0) continue;
    const name = row.throttle_key.slice('user:'.length, bar);
    const hashed = createHmac('sha256', secret).update(fold(name)).digest('base64url');
    await db.updateTable('staff_login_failures').set({ throttle_key: `user:${hashed}${row.throttle_key.slice(bar)}` }).where('id', '=', row.id).execute();
  }
  for (const column of ['test_line_count', 'test_billed_minor', 'test_success_count', 'test_paid_minor']) {
    await db.schema.alterTable('invoice_summaries').addColumn(column, int, (c) => c.notNull().defaultTo(0)).execute();
  }
  const same = sql`x.merchant_id = invoice_summaries.merchant_id AND x.invoice_ref = invoice_summaries.invoice_ref`;
  await sql`UPDATE invoice_summaries SET
    test_line_count = (SELECT COUNT(*) FROM invoice_lines x WHERE ${same} AND x.mode = 'test'),
    test_billed_minor = COALESCE((SELECT SUM(x.amount_minor) FROM invoice_lines x WHERE ${same} AND x.mode = 'test'), 0),
    test_success_count = (SELECT COUNT(*) FROM checkout_sessions x WHERE ${same} AND x.status = 'success' AND substr(x.id, 1, 8) = 'cs_test_'),
    test_paid_minor = COALESCE((SELECT SUM(x.amount_minor) FROM checkout_sessions x WHERE ${same} AND x.status = 'success' AND substr(x.id, 1, 8) = 'cs_test_'), 0)`.execute(db);
  if (isPostgres(db)) {
    for (const column of ['customer_name', 'invoice_ref']) {
      const name = sql.raw(`checkout_sessions_${column}_day_trgm`);
      await sql`DROP INDEX ${name}`.execute(db);
      await sql`CREATE INDEX ${name} ON checkout_sessions
        USING gin ((merchant_id || ''), substr(created_at, 1, 7), substr(created_at, 1, 10), ${sql.raw(column)} gin_trgm_ops) WITH (fastupdate = off)`.execute(db);
    }
  }
}
