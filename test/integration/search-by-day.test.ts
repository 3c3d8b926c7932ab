import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedIntegration } from '../../server/modules/integrations/integrations.service';
import { DENSE_DAY_FROM, monthsBetween, sessionSearchOf, type SearchHits, type SearchScope } from '../../server/db/search';
import { createTestApp, type TestContext } from '../support/app';
import { openSession } from '../support/checkout';
import { sql } from 'kysely';
import { onPostgres } from '../support/database';

describe('monthsBetween', () => {
  it('lists the UTC months from the newest back to the oldest, across a year end', () => {
    expect(monthsBetween('2025-11-30T23:59:59.999Z', '2026-02-01T00:00:00.000Z')).toEqual(['2026-02', '2026-01', '2025-12', '2025-11']);
    expect(monthsBetween('2026-03-01T00:00:00.000Z', '2026-03-31T00:00:00.000Z')).toEqual(['2026-03']);
    expect(monthsBetween('garbage', '2026-03-31T00:00:00.000Z')).toEqual([]);
  });
});

/**
 * PostgreSQL: a broad text is read day by day, newest first (server/db/search/postgres.ts,
 * migration 0026). It must find exactly what the whole-index query finds: the same newest
 * `cap` sessions, the same `capped`, for texts in names and refs, over months and days with and
 * without matches, another merchant's sessions left out, sessions created in the same
 * millisecond split by the cap (newest by created_at, then id). A capped walk answers a window
 * (its bounds, not its ids): the sessions are compared as the list reads them (`among`).
 */
describe.runIf(onPostgres)('the day-by-day search finds what the whole-index search finds', () => {
  let t: TestContext;
  let a: CreatedIntegration;
  let b: CreatedIntegration;

  beforeAll(async () => {
    t = await createTestApp();
    a = await t.merchant('By Day A');
    b = await t.merchant('By Day B');
    // Sessions on days spread over four months (the 31st, the 1st, a day in between), a few per
    // day at distinct times, some months without a match of some texts; B's in the same days.
    const days = ['2026-01-01', '2026-01-17', '2026-01-31', '2026-03-01', '2026-03-02', '2026-03-30', '2026-04-15'];
    let n = 0;
    for (const day of days) {
      for (let i = 0; i < 3; i++) {
        n++;
        t.clock.set(`${day}T${String(3 + i * 7).padStart(2, '0')}:${String(n % 60).padStart(2, '0')}:00.000Z`);
        const name = n % 4 === 0 ? `Esi Mensah ${n}` : `Kofi Payer ${n}`;
        await openSession(t, a, { invoice_ref: `BYDAY-${day.slice(5, 7)}-${n}`, customer: { name } });
        if (i === 0) await openSession(t, b, { invoice_ref: `BYDAY-${day.slice(5, 7)}-B${n}`, customer: { name: `Kofi Payer B${n}` } });
      }
    }
    // Letters beyond ASCII, in both cases, on two days of a month of their own: the walk reads a
    // dense day's text lower-cased (migration 0033) and must match what ILIKE matches.
    for (const [i, day] of ['2026-02-10', '2026-02-10', '2026-02-10', '2026-02-11', '2026-02-11'].entries()) {
      t.clock.set(`${day}T0${i}:30:00.000Z`);
      await openSession(t, a, { invoice_ref: `ÑYAMÉ-${i}`, customer: { name: i % 2 === 0 ? `ÁMA ÑYAMÉ ${i}` : `áma ñyamé ${i}` } });
    }
    // The newest: three sessions in one millisecond, which a cap of 1 or 2 splits.
    t.clock.set('2026-04-20T10:00:00.000Z');
    for (let i = 0; i < 3; i++) await openSession(t, a, { invoice_ref: `BYDAY-04-T${i}`, customer: { name: `Kofi Payer T${i}` } });
  });
  afterAll(async () => t?.close());

  const scopeOf = (cap: number, byDay: boolean): SearchScope => ({ merchantId: a.merchant_id, cap, now: t.clock.now().getTime(), byDay });
  const hits = (text: string, cap: number, byDay: boolean, only?: 'invoice_ref') => sessionSearchOf(t.database.db).hits(t.database.db, text, scopeOf(cap, byDay), only);
  /** The sessions the list reads among `h` (its condition, `among`), newest first, with the flags the list uses. */
  const sessionsOf = async (h: SearchHits, cap: number, byDay: boolean) => {
    const rows = await t.database.db
      .selectFrom('checkout_sessions as s')
      .innerJoin('merchants as m', 'm.id', 's.merchant_id')
      .select('s.id')
      .where('s.merchant_id', '=', a.merchant_id)
      .where((eb) => sessionSearchOf(t.database.db).among(eb, scopeOf(cap, byDay), h, true))
      .orderBy('s.created_at', 'desc')
      .orderBy('s.id', 'desc')
      .execute();
    return { ids: rows.map((r) => r.id), capped: h.capped, full: h.full, span: h.span };
  };
  const found = async (text: string, cap: number, byDay: boolean, only?: 'invoice_ref') => sessionsOf(await hits(text, cap, byDay, only), cap, byDay);

  it.each([
    ['payer', 1],
    ['payer', 2],
    ['payer', 4],
    ['payer', 5],
    ['payer', 100],
    ['PAYER 1', 3],
    ['mensah', 2],
    ['mensah', 100],
    ['byday-03', 4],
    ['byday', 20],
    ['nobody', 5],
    ['Áma ñYAMÉ', 3],
  ])('%s, cap %i', async (text, cap) => {
    const whole = await found(text, cap, false);
    expect(whole.ids.length).toBeLessThanOrEqual(cap);
    expect(await found(text, cap, true)).toEqual(whole);
    const ref = await found(text, cap, false, 'invoice_ref');
    expect(await found(text, cap, true, 'invoice_ref')).toEqual(ref);
  });

  it('answers a capped walk with its window, an uncapped one with its sessions', async () => {
    for (const capped of [await hits('payer', 2, true), await hits('byday', 2, true, 'invoice_ref')]) {
      expect(capped.window).not.toBeNull();
      expect(capped.keys).toEqual([]);
      expect(capped.capped).toBe(true);
    }
    const all = await hits('mensah', 100, true);
    expect(all.window).toBeNull();
    expect(all.keys.length).toBeGreaterThan(0);
  });

  it('keeps the newest, in time order, and says when it had more', async () => {
    const newest = await t.database.db.selectFrom('checkout_sessions').select('id').where('merchant_id', '=', a.merchant_id).where('customer_name', 'like', 'Kofi Payer %').orderBy('created_at', 'desc').orderBy('id', 'desc').limit(4).execute();
    const walked = await found('kofi payer', 4, true);
    expect(walked.ids).toEqual(newest.map((r) => r.id));
    expect(walked.capped).toBe(true);
    expect((await hits('mensah', 100, true)).capped).toBe(false);
  });

  // The walk's function (migration 0028) against every match in order, for every cap, with days read
  // from the trigram index and, after a day of `dense_from` matches or more, from the merchant's index.
  it.each([
    ['payer', false],
    ['mensah', false],
    ['kofi payer t', false],
    ['byday', true],
    ['byday-03', true],
    ['áma ñyamé', false],
    ['ÑYAMÉ-', true],
  ])('the window function finds the cap-th newest of %s (invoice_ref only: %s) for every cap', async (text, onlyRef) => {
    const db = t.database.db;
    const p = `%${text}%`;
    const all = (
      await sql<{ id: string; created_at: string }>`SELECT id, created_at FROM checkout_sessions WHERE merchant_id = ${a.merchant_id}
        AND (invoice_ref ILIKE ${p} OR (NOT ${onlyRef} AND customer_name ILIKE ${p})) ORDER BY created_at DESC, id DESC`.execute(db)
    ).rows;
    expect(all.length).toBeGreaterThan(2);
    const span = (await sql<{ o: string; n: string }>`SELECT min(created_at) AS o, max(created_at) AS n FROM checkout_sessions WHERE merchant_id = ${a.merchant_id}`.execute(db)).rows[0]!;
    for (const denseFrom of [1, 2, DENSE_DAY_FROM]) {
      for (let cap = 1; cap <= all.length + 1; cap++) {
        const r = (
          await sql<{ n: number; newest: string | null; at: string | null; at_id: string | null }>`SELECT * FROM paydesk_search_window(${a.merchant_id}, ${p}, ${p}, ${onlyRef},
            ${span.o.slice(0, 10)}, ${span.n.slice(0, 10)}, ${monthsBetween(span.o, span.n)}::text[], ${cap}, ${denseFrom})`.execute(db)
        ).rows[0]!;
        const what = `${text} cap ${cap} dense_from ${denseFrom}`;
        expect(r.n > cap, what).toBe(all.length > cap);
        expect(r.newest, what).toBe(all[0]!.created_at);
        if (all.length > cap) expect([r.at, r.at_id], what).toEqual([all[cap - 1]!.created_at, all[cap - 1]!.id]);
        else expect(r.n, what).toBe(all.length);
      }
    }
  });
});

/**
 * PostgreSQL: the walk skips a month without a match on one probe of the trigram index
 * (migration 0045). The planner takes the month and the text for independent: with a text in a
 * third of the names, every one of them in January, it expects a third of each month to match
 * and prices a sequential scan that stops at the first match below the probe, and in a month
 * without one that scan reads the whole table (1 s at a million sessions). Counted by the
 * transaction's own statistics (pg_stat_xact_user_tables): neither the window function nor the
 * walk that returns its rows starts a sequential scan of the sessions.
 */
describe.runIf(onPostgres)('a month without a match is skipped on the index, never by reading the table', () => {
  it('starts no sequential scan of the sessions, for the window or for the rows', async () => {
    const t = await createTestApp();
    try {
      const m = await t.merchant('Months Merchant');
      t.clock.set('2026-06-20T08:00:00.000Z');
      const template = await openSession(t, m, { invoice_ref: 'MONTHS-0', customer: { name: 'Payer 0' } });
      // 3,000 more: 1,000 "Payer 1…" in January, 2,000 "Payer 2…" to "Payer 9…" from February to June.
      const columns = (await sql<{ c: string }>`SELECT column_name AS c FROM information_schema.columns WHERE table_name = 'checkout_sessions' AND is_generated = 'NEVER' ORDER BY ordinal_position`.execute(t.database.db)).rows.map((r) => r.c);
      const at = `to_char(timestamp '2026-01-01' + CASE WHEN g <= 1000 THEN g * interval '40 minutes' ELSE interval '31 days' + (g - 1000) * interval '100 minutes' END, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
      const value = (c: string) =>
        c === 'id' ? `s.id || '_' || g` : c === 'created_at' ? at : c === 'customer_name' ? `'Payer ' || CASE WHEN g <= 1000 THEN 1 ELSE 2 + g % 8 END || g` : c === 'invoice_ref' ? `'MONTHS-' || g` : `s.${c}`;
      await sql`INSERT INTO checkout_sessions (${sql.raw(columns.join(', '))}) SELECT ${sql.raw(columns.map(value).join(', '))} FROM checkout_sessions s, generate_series(1, 3000) g WHERE s.id = ${template.id}`.execute(t.database.db);
      await sql`ANALYZE checkout_sessions`.execute(t.database.db);
      const months = monthsBetween('2026-01-01T00:40:00.000Z', '2026-06-20T08:00:00.000Z');
      expect(months).toHaveLength(6);
      await t.database.db.transaction().execute(async (trx) => {
        const seqScans = async () => Number((await sql<{ n: string }>`SELECT seq_scan AS n FROM pg_stat_xact_user_tables WHERE relname = 'checkout_sessions'`.execute(trx)).rows[0]!.n);
        const before = await seqScans();
        const window = (
          await sql<{ n: number }>`SELECT f.n FROM paydesk_search_window(${m.merchant_id}, '%payer 1%', '%payer 1%', false, '2026-01-01', '2026-06-20', ${months}::text[], 10000, ${DENSE_DAY_FROM}) AS f`.execute(trx)
        ).rows[0]!;
        expect(window.n).toBe(1000);
        // Fewer than the cap: the walk's own rows (newestByDay), after the window counted them.
        const found = await sessionSearchOf(trx).hits(trx, 'payer 1', { merchantId: m.merchant_id, cap: 10_000, now: t.clock.now().getTime(), byDay: true });
        expect(found.window).toBeNull();
        expect(found.keys).toHaveLength(1000);
        expect(await seqScans()).toBe(before);
      });
    } finally {
      await t.close();
    }
  });
});
