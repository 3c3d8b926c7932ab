import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedIntegration } from '../../server/modules/integrations/integrations.service';
import { createDispatcher, type Dispatcher } from '../../server/modules/webhooks/dispatcher';
import { loadConfig } from '../../server/config';
import { MAX_OFFSET } from '../../shared/schemas/common';
import { createTestApp, type TestContext } from '../support/app';
import { call, errorCode, sessionWithSlip, staff, type Staff } from '../support/backoffice';
import { openSession, payByCard } from '../support/checkout';
import { startLocalReceiver, type LocalReceiver } from '../support/local-receiver';

type Page = { total: number; total_capped: boolean; next_cursor?: string | null } & Record<string, unknown>;

/**
 * Every back-office list counts at most LIST_TOTAL_CAP matching rows (5 here) and says
 * when it stopped (`total_capped`); deposits and the audit trail page by cursor like the sessions.
 * Every row of a list is created in the same millisecond (the clock does not move), so each walk
 * also proves that ties are paged by id, every row once.
 */
describe('bounded list totals and keyset pages', () => {
  let t: TestContext;
  let receiver: LocalReceiver;
  let dispatcher: Dispatcher;
  let a: CreatedIntegration;
  let b: CreatedIntegration;
  let admin: Staff;
  let sup: Staff;
  let teller: Staff;
  let finA: Staff;
  let finB: Staff;
  const depositIds: string[] = [];
  const paidA: string[] = [];

  beforeAll(async () => {
    t = await createTestApp({ env: { LIST_TOTAL_CAP: '5' } });
    receiver = await startLocalReceiver({ respond: () => ({ status: 200, body: '{"received":true}' }) });
    a = await t.merchant('Totals A', receiver.url);
    b = await t.merchant('Totals B', receiver.url);
    admin = await staff(t, 'admin');
    sup = await staff(t, 'supervisor');
    teller = await staff(t, 'teller');
    finA = await staff(t, 'finance', { merchantId: a.merchant_id });
    finB = await staff(t, 'finance', { merchantId: b.merchant_id });
    // Merchant A: 7 deposits (cash) and 6 sessions paid by card; merchant B: 2 paid by card.
    for (let i = 0; i < 7; i++) {
      const slip = await sessionWithSlip(t, a, 1_000 + i * 100);
      const res = await call(t, teller, 'POST', `/cash-slips/${slip.slip_token}/deposits`, { amount_minor: slip.amount_minor });
      expect(res.statusCode, res.body).toBe(201);
      depositIds.push((res.json() as { deposit: { id: string } }).deposit.id);
    }
    for (const [m, n] of [[a, 6], [b, 2]] as const) {
      for (let i = 0; i < n; i++) {
        const s = await openSession(t, m);
        expect((await payByCard(t, s.id, '4242424242424242')).statusCode).toBe(201);
        if (m === a) paidA.push(s.id);
      }
    }
    dispatcher = createDispatcher({ db: t.database.db, clock: t.clock, outbox: t.outbox, retryDelaysS: [1], pollIntervalMs: 20 });
    await dispatcher.start();
    await dispatcher.idle();
  });
  afterAll(async () => {
    await dispatcher?.stop();
    await receiver?.close();
    await t?.close();
  });

  async function page(who: Staff, url: string): Promise<Page> {
    const res = await call(t, who, 'GET', url);
    expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
    return res.json() as Page;
  }

  /** Follows next_cursor from the first page; every page holds at most `limit` rows. */
  async function walk(who: Staff, url: string, key: string, limit = 2): Promise<string[]> {
    const seen: string[] = [];
    let cursor: string | null | undefined = null;
    do {
      const p = await page(who, `${url}${url.includes('?') ? '&' : '?'}limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
      const rows = p[key] as Array<{ id: string }>;
      expect(rows.length).toBeLessThanOrEqual(limit);
      seen.push(...rows.map((r) => r.id));
      cursor = p.next_cursor;
    } while (cursor);
    return seen;
  }

  it('the sessions list stops counting at the cap and says so; an exact count below it', async () => {
    const all = await page(finA, '/sessions?limit=2');
    expect(all).toMatchObject({ total: 5, total_capped: true });
    expect(all.sessions).toHaveLength(2);
    // 7 cash sessions (pending review) and 6 paid: past the cap every page is still there.
    expect(new Set(await walk(finA, '/sessions', 'sessions', 4)).size).toBe(13);
    expect(await page(finA, '/sessions?status=success')).toMatchObject({ total: 5, total_capped: true });
    expect(await page(finB, '/sessions')).toMatchObject({ total: 2, total_capped: false });
    expect(await page(finA, `/sessions?q=${paidA[0]}`)).toMatchObject({ total: 1, total_capped: false });
  });

  it('the invoice list stops counting at the cap too, and every page past it is still served', async () => {
    const first = await page(finA, '/invoices?limit=4');
    expect(first).toMatchObject({ total: 5, total_capped: true });
    const refs = new Set<string>();
    for (let offset = 0; offset < 40; offset += 4) {
      const p = (await page(finA, `/invoices?limit=4&offset=${offset}`)) as unknown as { invoices: Array<{ invoice_ref: string }> };
      for (const inv of p.invoices) refs.add(inv.invoice_ref);
      if (p.invoices.length < 4) break;
    }
    expect(refs.size).toBeGreaterThan(5);
    expect(await page(finB, '/invoices')).toMatchObject({ total: 2, total_capped: false });
  });

  it('a search keeps its newest `cap` sessions: a bounded total said capped, every page (offset or cursor) within them', async () => {
    const c = await t.merchant('Totals C');
    const finC = await staff(t, 'finance', { merchantId: c.merchant_id });
    // 8 sessions whose payer name contains "Broad Payer", a second apart (the last 5 are the newest), amounts out of order.
    const made: string[] = [];
    for (let i = 0; i < 8; i++) {
      t.clock.advanceSeconds(1);
      made.push((await openSession(t, c, { customer: { name: `Broad Payer ${i}` }, invoice_ref: `BROAD-${i}`, amount_minor: 1_000 + ((i * 3) % 8) * 100 })).id);
    }
    const newest = made.slice(3).reverse();
    for (const search of ['q=broad%20payer', 'invoice_ref=BROAD-', 'q=broad%20payer&invoice_ref=broad']) {
      const first = await page(finC, `/sessions?${search}&limit=2`);
      expect(first, search).toMatchObject({ total: 5, total_capped: true });
      expect(await walk(finC, `/sessions?${search}`, 'sessions'), search).toEqual(newest);
      const byOffset: string[] = [];
      for (let offset = 0; offset < 10; offset += 2) byOffset.push(...((await page(finC, `/sessions?${search}&limit=2&offset=${offset}`)).sessions as Array<{ id: string }>).map((r) => r.id));
      expect(byOffset, search).toEqual(newest);
      // Another sort orders the same five.
      const byAmount = (await page(finC, `/sessions?${search}&sort=amount_minor&dir=asc&limit=50`)).sessions as Array<{ id: string; amount_minor: number }>;
      expect(new Set(byAmount.map((r) => r.id)), search).toEqual(new Set(newest));
      expect(byAmount.map((r) => r.amount_minor), search).toEqual([...byAmount.map((r) => r.amount_minor)].sort((x, y) => x - y));
      expect(await walk(finC, `/sessions?${search}&sort=amount_minor&dir=asc`, 'sessions'), search).toEqual(byAmount.map((r) => r.id));
    }
    // The other filters apply among the candidates; a narrow text is exact and not capped; an older session is still found by its id.
    expect(await page(finC, '/sessions?q=broad%20payer&status=success')).toMatchObject({ total: 0, total_capped: true });
    expect(await page(finC, '/sessions?q=broad%20payer%202')).toMatchObject({ total: 1, total_capped: false });
    expect(await page(finC, `/sessions?q=${made[0]}`)).toMatchObject({ total: 1, total_capped: false });
    // Under 3 characters: the exact invoice ref, capped the same way.
    for (let i = 0; i < 7; i++) await openSession(t, c, { invoice_ref: 'BX' });
    expect(await page(finC, '/sessions?q=BX')).toMatchObject({ total: 5, total_capped: true });
    expect(await page(finC, '/sessions?invoice_ref=BX')).toMatchObject({ total: 5, total_capped: true });
  });

  it('invoices: a cursor walk in every sort gives the order offset pages give, every invoice once', async () => {
    const refsOf = (p: Page) => (p.invoices as Array<{ invoice_ref: string }>).map((r) => r.invoice_ref);
    for (const order of ['', '&dir=asc', '&sort=invoice_ref&dir=asc', '&sort=invoice_ref', '&sort=billed_minor&dir=asc', '&sort=billed_minor', '&sort=line_count', '&remitted=true']) {
      const all = refsOf(await page(finA, `/invoices?limit=200${order}`));
      expect(all.length, order).toBeGreaterThan(5);
      const seen: string[] = [];
      let cursor: string | null | undefined = null;
      do {
        const p = await page(finA, `/invoices?limit=3${order}${cursor ? `&cursor=${cursor}` : ''}`);
        expect(p).toMatchObject({ total: 5, total_capped: true });
        expect(refsOf(p).length).toBeLessThanOrEqual(3);
        seen.push(...refsOf(p));
        cursor = p.next_cursor;
      } while (cursor);
      expect(seen, order).toEqual(all);
    }
    const first = await page(finA, '/invoices?limit=2');
    for (const url of [`/invoices?sort=billed_minor&cursor=${first.next_cursor}`, `/invoices?dir=asc&cursor=${first.next_cursor}`, `/invoices?offset=2&cursor=${first.next_cursor}`, '/invoices?cursor=bm90LWEtY3Vyc29y']) {
      const res = await call(t, finA, 'GET', url);
      expect(res.statusCode, url).toBe(400);
      expect(errorCode(res), url).toBe('INVALID_ARGUMENT');
      expect(res.body, url).toContain('cursor');
    }
  });

  it('deposits: capped total, a cursor walk in the order offset pages give, every deposit once', async () => {
    const first = await page(sup, '/deposits?limit=50');
    expect(first).toMatchObject({ total: 5, total_capped: true, next_cursor: null });
    const byOffset = (first.deposits as Array<{ id: string }>).map((d) => d.id);
    expect([...byOffset].sort()).toEqual([...depositIds].sort());
    expect(await walk(sup, '/deposits', 'deposits')).toEqual((first.deposits as Array<{ id: string }>).map((d) => d.id));
    // Offset paging still works and agrees with the cursor.
    const second = await page(sup, '/deposits?limit=2&offset=2');
    expect((second.deposits as Array<{ id: string }>).map((d) => d.id)).toEqual(byOffset.slice(2, 4));
    // The review queue (oldest first) walks the other way.
    const queue = await page(sup, '/deposits?status=under_review&limit=50');
    expect(queue).toMatchObject({ total: 5, total_capped: true });
    const queueIds = (queue.deposits as Array<{ id: string }>).map((d) => d.id);
    expect(queueIds).toEqual([...byOffset].reverse());
    expect(await walk(sup, '/deposits?status=under_review', 'deposits', 3)).toEqual(queueIds);
    // A teller's own deposits, exact below the cap for one day range too.
    expect(await page(teller, '/deposits')).toMatchObject({ total: 5, total_capped: true });
    const other = await staff(t, 'teller');
    expect(await page(other, '/deposits')).toMatchObject({ total: 0, total_capped: false, next_cursor: null });
  });

  it('deposits: a cursor with offset, with another sort or direction, or forged, is 400 naming cursor', async () => {
    const first = await page(sup, '/deposits?limit=2');
    const cursor = first.next_cursor as string;
    expect(cursor).toEqual(expect.any(String));
    // Other sorts page by offset: no cursor offered.
    expect((await page(sup, '/deposits?sort=amount_minor&limit=2')).next_cursor).toBeNull();
    for (const url of [`/deposits?offset=2&cursor=${cursor}`, `/deposits?sort=amount_minor&cursor=${cursor}`, `/deposits?dir=asc&cursor=${cursor}`, '/deposits?cursor=bm90LWEtY3Vyc29y']) {
      const res = await call(t, sup, 'GET', url);
      expect(res.statusCode, url).toBe(400);
      expect(errorCode(res), url).toBe('INVALID_ARGUMENT');
      expect(res.body, url).toContain('cursor');
    }
    expect((await call(t, sup, 'GET', '/deposits?limit=201')).statusCode).toBe(400);
  });

  it('audit: capped total, cursor walk equal to offset order (both directions), exact count of a narrow filter', async () => {
    const first = await page(admin, '/audit?limit=200');
    expect(first).toMatchObject({ total: 5, total_capped: true, next_cursor: null });
    const entries = (first.entries as Array<{ id: string }>).map((e) => e.id);
    expect(entries.length).toBeGreaterThan(5);
    expect(await walk(admin, '/audit', 'entries', 3)).toEqual(entries);
    const asc = (await page(admin, '/audit?dir=asc&limit=200')).entries as Array<{ id: string }>;
    expect(await walk(admin, '/audit?dir=asc', 'entries', 4)).toEqual(asc.map((e) => e.id));
    expect(await page(admin, `/audit?target_id=${depositIds[0]}`)).toMatchObject({ total: 1, total_capped: false });
    const byAction = await call(t, admin, 'GET', `/audit?sort=action&cursor=${(await page(admin, '/audit?limit=1')).next_cursor as string}`);
    expect(byAction.statusCode).toBe(400);
    expect(errorCode(byAction)).toBe('INVALID_ARGUMENT');
  });

  it('webhook attempts: capped for all merchants and for one, exact for a narrow filter, on the attempts and on their deliveries', async () => {
    expect(await page(admin, '/webhooks/attempts')).toMatchObject({ total: 5, total_capped: true });
    expect(await page(finA, '/webhooks/attempts')).toMatchObject({ total: 5, total_capped: true });
    expect(await page(finB, '/webhooks/attempts')).toMatchObject({ total: 2, total_capped: false });
    expect(await page(admin, `/webhooks/attempts?merchant_id=${b.merchant_id}`)).toMatchObject({ total: 2, total_capped: false });
    // On the attempt (outcome) and on its delivery (session, event type): the same bound.
    expect(await page(admin, '/webhooks/attempts?outcome=succeeded')).toMatchObject({ total: 5, total_capped: true });
    expect(await page(admin, '/webhooks/attempts?outcome=failed')).toMatchObject({ total: 0, total_capped: false });
    expect(await page(admin, `/webhooks/attempts?session_id=${paidA[0]}`)).toMatchObject({ total: 1, total_capped: false });
    expect(await page(finB, '/webhooks/attempts?event_type=checkout.session.completed')).toMatchObject({ total: 2, total_capped: false });
    expect(await page(admin, '/webhooks/attempts?event_type=checkout.session.completed')).toMatchObject({ total: 5, total_capped: true });
    // Sorted pages (by offset) carry the same bound; the cursor walk still reaches every attempt.
    expect(await page(admin, '/webhooks/attempts?sort=latency_ms&offset=6')).toMatchObject({ total: 5, total_capped: true });
    expect(new Set(await walk(admin, '/webhooks/attempts', 'attempts', 3)).size).toBe(8);
  });

  it('an offset past MAX_OFFSET is 400 naming offset on every list read from the database; at MAX_OFFSET it is served', async () => {
    // A deep offset reads every row it skips (at a million sessions, offset=700000 held the server 2.7 s).
    const lists: Array<[Staff, string]> = [
      [finA, '/sessions'],
      [finA, '/sessions?sort=amount_minor'],
      [finA, '/invoices'],
      [sup, '/deposits'],
      [sup, '/deposits?sort=amount_minor'],
      [admin, '/audit'],
      [admin, '/audit?sort=action'],
      [admin, '/webhooks/attempts?sort=latency_ms'],
      [admin, '/webhooks/attempts'],
    ];
    for (const [who, url] of lists) {
      const join = url.includes('?') ? '&' : '?';
      const atCap = await page(who, `${url}${join}offset=${MAX_OFFSET}`);
      expect(atCap.total, url).toBeGreaterThan(0);
      const res = await call(t, who, 'GET', `${url}${join}offset=${MAX_OFFSET + 1}`);
      expect(res.statusCode, url).toBe(400);
      expect(errorCode(res), url).toBe('INVALID_ARGUMENT');
      expect((res.json() as { error: { message: string } }).error.message, url).toMatch(/offset.*at most 10,000.*cursor/);
    }
  });

  it('LIST_TOTAL_CAP is a whole number from 1; a bad value names the variable', () => {
    expect(loadConfig({ DATA_DIR: t.dataDir }).listTotalCap).toBe(10_000);
    expect(loadConfig({ DATA_DIR: t.dataDir, LIST_TOTAL_CAP: '250' }).listTotalCap).toBe(250);
    for (const bad of ['0', '2.5', 'many']) expect(() => loadConfig({ DATA_DIR: t.dataDir, LIST_TOTAL_CAP: bad })).toThrow(/LIST_TOTAL_CAP/);
  });
});
