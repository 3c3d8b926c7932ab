import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedIntegration } from '../../server/modules/integrations/integrations.service';
import { createTestApp, type TestContext } from '../support/app';
import { call, errorCode, staff, type Staff } from '../support/backoffice';
import { openSession, payByCard } from '../support/checkout';
import { paymentsCsv } from '../../server/modules/finance/finance-export.service';

/** Deep pages by cursor, and an invoice's sessions a page at a time. */
describe('back-office keyset pages', () => {
  let t: TestContext;
  let m: CreatedIntegration;
  let fin: Staff;
  const ids: string[] = [];

  beforeAll(async () => {
    t = await createTestApp();
    m = await t.merchant('Paging');
    fin = await staff(t, 'finance', { merchantId: m.merchant_id });
    // 7 sessions of one invoice, two of them in the same millisecond (the id breaks the tie).
    for (let i = 0; i < 7; i++) {
      if (i !== 3) t.clock.advanceSeconds(1);
      ids.push((await openSession(t, m, { invoice_ref: 'DONATION', amount_minor: 100 + (i % 3) })).id);
    }
  });
  afterAll(async () => t.close());

  async function walk(url: string, key: 'sessions'): Promise<{ ids: string[]; pages: number }> {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await call(t, fin, 'GET', `${url}${url.includes('?') ? '&' : '?'}limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json() as { sessions: { id: string }[]; next_cursor: string | null };
      expect(body[key].length).toBeLessThanOrEqual(3);
      seen.push(...body[key].map((s) => s.id));
      cursor = body.next_cursor;
      pages++;
    } while (cursor);
    return { ids: seen, pages };
  }

  it('walking the session list by cursor returns every session once, in the order offset paging gives', async () => {
    const all = (await call(t, fin, 'GET', '/sessions?limit=50')).json() as { sessions: { id: string }[]; total: number; next_cursor: string | null };
    expect(all.total).toBe(7);
    expect(all.next_cursor).toBeNull();
    const byCursor = await walk('/sessions', 'sessions');
    expect(byCursor.pages).toBe(3);
    expect(byCursor.ids).toEqual(all.sessions.map((s) => s.id));
    // Another sort pages the same way (amount ties broken by id).
    const byAmount = (await call(t, fin, 'GET', '/sessions?limit=50&sort=amount_minor&dir=asc')).json() as { sessions: { id: string }[] };
    expect((await walk('/sessions?sort=amount_minor&dir=asc', 'sessions')).ids).toEqual(byAmount.sessions.map((s) => s.id));
  });

  it('a cursor of another sort, a forged cursor, or a cursor with offset is 400 naming cursor', async () => {
    const first = (await call(t, fin, 'GET', '/sessions?limit=2')).json() as { next_cursor: string };
    for (const url of [`/sessions?sort=amount_minor&cursor=${first.next_cursor}`, '/sessions?cursor=bm90LWEtY3Vyc29y', `/sessions?offset=2&cursor=${first.next_cursor}`]) {
      const res = await call(t, fin, 'GET', url);
      expect(res.statusCode, url).toBe(400);
      expect(errorCode(res), url).toBe('INVALID_ARGUMENT');
      expect(res.body, url).toContain('cursor');
    }
  });

  it('the invoice detail pages its sessions: sessions_total, at most limit per page, newest first', async () => {
    const first = await call(t, fin, 'GET', '/invoices/DONATION?limit=3');
    expect(first.statusCode, first.body).toBe(200);
    const body = first.json() as { sessions: { id: string }[]; sessions_total: number; next_cursor: string | null };
    expect(body.sessions_total).toBe(7);
    expect(body.sessions.map((s) => s.id)).toEqual([ids[6], ids[5], ids[4]]);
    const walked: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await call(t, fin, 'GET', `/invoices/DONATION?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      const page = res.json() as { sessions: { id: string }[]; next_cursor: string | null };
      walked.push(...page.sessions.map((s) => s.id));
      cursor = page.next_cursor;
    } while (cursor);
    expect(new Set(walked).size).toBe(7);
    expect(walked.slice(0, 3)).toEqual([ids[6], ids[5], ids[4]]);
    // The default page is 50, the maximum 200.
    expect((await call(t, fin, 'GET', '/invoices/DONATION?limit=201')).statusCode).toBe(400);
  });

  it('the payments CSV streamed in small batches is the same file as in one batch, every paid session once in paid order', async () => {
    // Five paid sessions, two of them paid in the same millisecond (the id orders them).
    for (const [i, id] of ids.slice(0, 5).entries()) {
      if (i !== 2) t.clock.advanceSeconds(1);
      expect((await payByCard(t, id, '4242424242424242')).statusCode).toBe(201);
    }
    const from = new Date(Date.now() - 86_400_000).toISOString();
    const to = new Date(t.clock.now().getTime() + 86_400_000).toISOString();
    const whole = await paymentsCsv(t.database.db, m.merchant_id, from, to, 1000);
    const lines = whole.trimEnd().split('\r\n');
    expect(lines).toHaveLength(6);
    expect(new Set(lines.slice(1).map((l) => l.split(',')[1])).size).toBe(5);
    for (const batch of [1, 2, 4, 5]) expect(await paymentsCsv(t.database.db, m.merchant_id, from, to, batch), `batch ${batch}`).toBe(whole);
    const res = await call(t, fin, 'GET', `/reports/payments.csv?from=${from}&to=${to}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/csv');
    expect(res.body).toBe(whole);
    // A bad range is still a 400 before any byte of CSV.
    const bad = await call(t, fin, 'GET', `/reports/payments.csv?from=${to}&to=${from}`);
    expect(bad.statusCode).toBe(400);
    expect(errorCode(bad)).toBe('INVALID_ARGUMENT');
  });
});
