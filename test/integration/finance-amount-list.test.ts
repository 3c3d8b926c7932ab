import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedIntegration } from '../../server/modules/integrations/integrations.service';
import { createTestApp, type TestContext } from '../support/app';
import { openSession, setFeeRule } from '../support/checkout';
import { call, errorCode, sessionWithSlip, staff, type Staff } from '../support/backoffice';

interface Page {
  sessions: Array<{ id: string; amount_minor: number; collected_minor: number | null }>;
  total: number;
  total_capped: boolean;
  next_cursor: string | null;
}

/**
 * A list by amount alone, by time, is read among the amount's (id, created_at) pairs
 * (finance/amount-list.ts); with any other filter it is the general list. A `from` long before
 * every session changes nothing but the path, so the two must give the same pages, totals and
 * cursors, in both directions, by cursor and by offset, ties on created_at broken by id.
 */
describe('finance list by amount alone answers as the general list does', () => {
  let t: TestContext;
  let a: CreatedIntegration;
  let b: CreatedIntegration;
  let fin: Staff;
  let deposited: string;
  let sameBase: string;

  beforeAll(async () => {
    t = await createTestApp();
    a = await t.merchant('Amounts A');
    b = await t.merchant('Amounts B');
    fin = await staff(t, 'finance', { merchantId: a.merchant_id });
    const teller = await staff(t, 'teller');
    const sup = await staff(t, 'supervisor');
    // Three of GHS 42.00 in one millisecond (a tie on created_at), then four more a second apart.
    for (let i = 0; i < 3; i++) await openSession(t, a, { amount_minor: 4_200, invoice_ref: `AMT-TIE-${i}` });
    for (let i = 0; i < 4; i++) {
      t.clock.advance(1_000);
      await openSession(t, a, { amount_minor: 4_200, invoice_ref: `AMT-${i}` });
    }
    await openSession(t, a, { amount_minor: 9_999, invoice_ref: 'AMT-OTHER' });
    // A cash payment of GHS 30.00 with a 1 % fee collects GHS 30.30: found by what was collected, beside a session of 30.30 itself.
    await setFeeRule(t, a.integration_id, 'cash', { percent_bps: 100, fixed_minor: 0, cap_minor: null, bearer: 'payer' });
    t.clock.advance(1_000);
    const slip = await sessionWithSlip(t, a, 3_000, 'AMT-CASH');
    expect(slip.amount_minor).toBe(3_030);
    const dep = (await call(t, teller, 'POST', `/cash-slips/${slip.slip_token}/deposits`, { amount_minor: slip.amount_minor })).json().deposit.id;
    expect((await call(t, sup, 'POST', `/deposits/${dep}/approve`)).statusCode).toBe(200);
    deposited = slip.session_id;
    t.clock.advance(1_000);
    sameBase = (await openSession(t, a, { amount_minor: 3_030, invoice_ref: 'AMT-3030' })).id;
    // Another merchant's sessions of the same amounts never show.
    await openSession(t, b, { amount_minor: 4_200, invoice_ref: 'AMT-B' });
    await openSession(t, b, { amount_minor: 3_030, invoice_ref: 'AMT-B2' });
  });
  afterAll(async () => t?.close());

  const list = async (qs: string): Promise<Page> => {
    const res = await call(t, fin, 'GET', `/sessions?merchant_id=${a.merchant_id}&${qs}`);
    expect(res.statusCode, `${qs}: ${res.body}`).toBe(200);
    return res.json() as Page;
  };
  /** Every page by cursor, `limit` at a time. */
  const walk = async (qs: string, limit: number): Promise<Page[]> => {
    const pages: Page[] = [];
    let cursor: string | null = null;
    do {
      const page: Page = await list(`${qs}&limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
      pages.push(page);
      cursor = page.next_cursor;
    } while (cursor && pages.length < 20);
    return pages;
  };
  const general = '&from=2000-01-01T00:00:00.000Z';

  it('gives the same pages, totals and cursors, by cursor and by offset, in both directions', async () => {
    for (const amount of [4_200, 3_030, 9_999, 1]) {
      for (const dir of ['desc', 'asc']) {
        const qs = `amount_minor=${amount}&dir=${dir}`;
        const fast = await walk(qs, 2);
        expect(fast, `${qs}`).toEqual(await walk(`${qs}${general}`, 2));
        for (const offset of [0, 1, 3]) expect(await list(`${qs}&limit=2&offset=${offset}`), `${qs} offset ${offset}`).toEqual(await list(`${qs}&limit=2&offset=${offset}${general}`));
      }
    }
  });

  it('finds the merchant’s sessions of an amount, by invoice amount or by what was collected, newest first', async () => {
    const forty = await walk('amount_minor=4200', 50);
    expect(forty).toHaveLength(1);
    expect(forty[0]!.total).toBe(7);
    expect(forty[0]!.total_capped).toBe(false);
    expect(forty[0]!.sessions.every((s) => s.amount_minor === 4_200)).toBe(true);
    const thirty = (await list('amount_minor=3030')).sessions;
    expect(thirty.map((s) => s.id)).toEqual([sameBase, deposited]);
    expect(thirty[1]).toMatchObject({ amount_minor: 3_000, collected_minor: 3_030 });
    expect((await list('amount_minor=1')).sessions).toEqual([]);
  });

  it('refuses a cursor with an offset, and a cursor of another order, naming cursor', async () => {
    const first = await list('amount_minor=4200&limit=2');
    const both = await call(t, fin, 'GET', `/sessions?merchant_id=${a.merchant_id}&amount_minor=4200&limit=2&offset=1&cursor=${first.next_cursor}`);
    expect(both.statusCode).toBe(400);
    expect(errorCode(both)).toBe('INVALID_ARGUMENT');
    expect(both.body).toContain('cursor');
    const other = await call(t, fin, 'GET', `/sessions?merchant_id=${a.merchant_id}&amount_minor=4200&limit=2&dir=asc&cursor=${first.next_cursor}`);
    expect(other.statusCode).toBe(400);
    expect(other.body).toContain('cursor');
  });
});
