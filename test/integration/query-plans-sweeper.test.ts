import { describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { onPostgres } from '../support/database';
import { sessionWithSlip } from '../support/backoffice';
import { openSession, quoteTotal, startAttempt, startMomo } from '../support/checkout';
import { explainFailures, recordedApp } from '../support/query-plans';
import { sweep } from '../../server/jobs/sweeper';
import { randomIds } from '../../server/lib/ids';

/**
 * The sweeper's tick asks first which of its moves have a row due (sweeper.ts whatIsDue), so the
 * list test (query-plans.test.ts), where nothing is due, sees only that question. Here a row of
 * each kind is due, on a clock a year on, so every move's own queries run and are explained. An
 * app of its own: these rows would change the statistics that test is explained with.
 */
describe('the sweeper with a row of each kind due reads them through indexes', () => {
  it('finds no full scan of a growing table', async () => {
    const { t, recorder } = await recordedApp();
    try {
      const m = await t.merchant('Due Plans');
      const momo = await openSession(t, m, { invoice_ref: 'DUE-1' });
      await startMomo(t, momo.id);
      const transfer = await openSession(t, m, { invoice_ref: 'DUE-2' });
      const issued = await startAttempt(t, transfer.id, { rail: 'bank_transfer', amount_minor: await quoteTotal(t, transfer.id, 'bank_transfer') });
      expect(issued.statusCode, issued.body).toBe(201);
      await sessionWithSlip(t, m, 5_000, 'DUE-3');
      await openSession(t, m, { invoice_ref: 'DUE-4' });
      const yearOn = { clock: { now: () => new Date(t.clock.now().getTime() + 365 * 86_400_000) }, ids: randomIds, outbox: t.outbox };
      recorder.label = 'sweeper due';
      const swept = await sweep(t.database.db.withPlugin(recorder), yearOn);
      recorder.label = null;
      expect(swept.expiredAttempts).toBe(2);
      expect(swept.expiredSessions).toBeGreaterThan(0);
      expect(await t.database.db.selectFrom('cash_slips').select('id').where('status', '=', 'active').executeTakeFirst(), 'every active slip expired').toBeUndefined();
      // Each move's own table was read (not only whatIsDue's one statement).
      const seen = [...recorder.seen.values()].map((q) => q.sql);
      for (const table of ['payment_attempts', 'checkout_sessions', 'cash_slips']) expect(seen.filter((q) => q.startsWith(`select`) && q.includes(`from "${table}"`)).length, table).toBeGreaterThan(0);
      if (onPostgres) await sql`ANALYZE`.execute(t.database.db);
      const failures = await explainFailures(t.database.db, recorder);
      expect(failures, failures.join('\n\n')).toEqual([]);
    } finally {
      await t.close();
    }
  });
});
