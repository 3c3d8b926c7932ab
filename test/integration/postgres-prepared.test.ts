import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { findMerchantSession } from '../../server/modules/sessions/sessions.repository';
import { onPostgres, withFreshPostgres } from '../support/database';

/**
 * The hot statements (server/db/precompiled.ts) run as named prepared statements on PostgreSQL
 * (server/db/prepared-statements.ts): parsed and planned once per connection. A column added by
 * another instance's migration while they are prepared is met by preparing them again, in and
 * out of a transaction, never by an error to the caller; so is a pooler that loses them.
 */
describe.skipIf(!onPostgres)('prepared statements on PostgreSQL', () => {
  it('a session lookup is prepared once per connection and survives a column added under it', async () => {
    await withFreshPostgres(1, async (opened) => {
      const prepared = async () =>
        (await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(opened.db)).rows.map((r) => r.statement).filter((s) => s.includes('checkout_sessions'));
      expect(await findMerchantSession(opened.db, 'mer_x', 'cs_test_none')).toBeUndefined();
      expect(await findMerchantSession(opened.db, 'mer_x', 'cs_test_none')).toBeUndefined();
      // One connection, one prepared copy of the lookup, however often it runs.
      expect(await prepared()).toHaveLength(1);
      expect((await prepared())[0]).toMatch(/select \*, xmin::text .* from "checkout_sessions" where "id" = \$1/);

      // Another instance's migration adds a column: `select *` now returns another row type.
      await sql`alter table checkout_sessions add column added_by_another_instance text`.execute(opened.db);
      expect(await findMerchantSession(opened.db, 'mer_x', 'cs_test_none')).toBeUndefined();
      // Inside a transaction the refusal aborts it; the transaction is run again and succeeds.
      await sql`alter table checkout_sessions drop column added_by_another_instance`.execute(opened.db);
      const inside = await opened.db.transaction().execute(async (trx) => findMerchantSession(trx, 'mer_x', 'cs_test_none'));
      expect(inside).toBeUndefined();
    });
  });

  it('behind a pooler that loses them (PgBouncer in transaction mode), a client falls back to unnamed statements', async () => {
    await withFreshPostgres(1, async (opened) => {
      const prepared = async () => Number((await sql<{ n: number }>`select count(*)::int as n from pg_prepared_statements`.execute(opened.db)).rows[0]!.n);
      expect(await findMerchantSession(opened.db, 'mer_x', 'cs_test_none')).toBeUndefined();
      expect(await prepared()).toBeGreaterThan(0);
      // What a pooler does when the client's next transaction lands on another server connection:
      // the statements this client prepared are not there.
      await sql`deallocate all`.execute(opened.db);
      // Inside a transaction: the miss aborts it, the transaction runs again, unnamed.
      expect(await opened.db.transaction().execute(async (trx) => findMerchantSession(trx, 'mer_x', 'cs_test_none'))).toBeUndefined();
      expect(await findMerchantSession(opened.db, 'mer_x', 'cs_test_none')).toBeUndefined();
      // From then on this client prepares nothing more.
      expect(await prepared()).toBe(0);
    });
  });
});
