import { sql, type KyselyPlugin } from 'kysely';
import { describe, expect, it } from 'vitest';
import { afterCommit } from '../../server/db/after-commit';
import { findMerchantSession } from '../../server/modules/sessions/sessions.repository';
import { onPostgres, withFreshPostgres } from '../support/database';

/**
 * On PostgreSQL each transaction attempt collects its afterCommit work (server/db/after-commit.ts):
 * it runs once, after the commit, when what the transaction wrote is visible to other connections;
 * an attempt that is re-run or rolled back runs nothing. The hot statements outside a transaction
 * run on a pooled client (server/db/direct-postgres.ts); a handle with a plugin keeps Kysely's path.
 */
describe.skipIf(!onPostgres)('after the commit, on PostgreSQL', () => {
  it('runs once the transaction committed, once per transaction, never for a rolled-back or re-run attempt', async () => {
    await withFreshPostgres(3, async (opened) => {
      await sql`create table after_commit_probe (n int primary key)`.execute(opened.db);
      const seen: Array<{ n: number; visible: number }> = [];
      const visible = async () => Number((await sql<{ c: number }>`select count(*)::int as c from after_commit_probe`.execute(opened.db)).rows[0]!.c);
      const probes: Array<Promise<void>> = [];
      const onCommit = (n: number) => () => {
        probes.push(visible().then((v) => void seen.push({ n, visible: v })));
      };

      let attempts = 0;
      await opened.db.transaction().execute(async (trx) => {
        attempts++;
        await sql`insert into after_commit_probe values (1)`.execute(trx);
        afterCommit(trx, onCommit(1));
        // Nothing runs while the transaction is open.
        expect(probes).toHaveLength(0);
        // The first attempt fails as a serialization failure would: it is run again from the start.
        if (attempts === 1) throw Object.assign(new Error('could not serialize access'), { code: '40001' });
      });
      expect(attempts).toBe(2);
      await Promise.all(probes);
      // Once, for the attempt that committed, and the row was visible to another connection.
      expect(seen).toEqual([{ n: 1, visible: 1 }]);

      await expect(
        opened.db.transaction().execute(async (trx) => {
          await sql`insert into after_commit_probe values (2)`.execute(trx);
          afterCommit(trx, onCommit(2));
          throw new Error('refused');
        }),
      ).rejects.toThrow('refused');
      await Promise.all(probes);
      expect(seen.map((s) => s.n)).toEqual([1]);

      // Outside a transaction: at once.
      afterCommit(opened.db, onCommit(3));
      expect(probes).toHaveLength(2);
      await Promise.all(probes);
      expect(seen.at(-1)).toEqual({ n: 3, visible: 1 });
    });
  });

  it('a hot statement runs on a pooled client, and through Kysely on a handle with a plugin', async () => {
    await withFreshPostgres(2, async (opened) => {
      const recorded: string[] = [];
      const recorder: KyselyPlugin = {
        transformQuery: ({ node }) => node,
        transformResult: async ({ result }) => {
          recorded.push('result');
          return result;
        },
      };
      expect(await findMerchantSession(opened.db, 'mer_x', 'cs_test_none')).toBeUndefined();
      expect(await findMerchantSession(opened.db.withPlugin(recorder), 'mer_x', 'cs_test_none')).toBeUndefined();
      expect(recorded).toEqual(['result']);
      // Every client went back to the pool.
      expect(opened.pool.totalCount - opened.pool.idleCount).toBe(0);
    });
  });
});
