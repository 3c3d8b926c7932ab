import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as m0010 from '../../server/db/migrations/0010_slip_reference_key';
import * as m0046 from '../../server/db/migrations/0046_slip_reference_keys_mended';
import { newSlipReference, SLIP_ALPHABET, slipReferenceKey } from '../../server/lib/slip-reference';
import type { CreatedIntegration } from '../../server/modules/integrations/integrations.service';
import { createTestApp, type TestContext } from '../support/app';
import { payByCard, setFeeRule } from '../support/checkout';
import { call, errorCode, sessionWithSlip, staff, type Staff } from '../support/backoffice';

// The teller's typed reference, the
// shift total, the review filters and what the payer's page learns about cash deposits.
describe('slip references', () => {
  it('draws every symbol of the alphabet, and only those', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 4000; i++) {
      const ref = newSlipReference();
      expect(ref).toMatch(/^PD-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$/);
      for (const c of ref.slice(3).replace('-', '')) seen.add(c);
    }
    expect([...seen].sort().join('')).toBe([...SLIP_ALPHABET].sort().join(''));
    expect(SLIP_ALPHABET).toHaveLength(32);
    expect(SLIP_ALPHABET).not.toMatch(/[ILOU]/);
  });

  it('normalises what a teller types: case, dashes, spaces, the PD prefix, O/0 and I/L/1', () => {
    for (const typed of ['PD-10AB-CD01', 'pd-10ab-cd01', 'PD10ABCD01', ' pd 10ab cd01 ', '10ABCD01', 'PD-IOAB-CDOL', 'pd-loab-cdoi'])
      expect(slipReferenceKey(typed)).toBe('10ABCD01');
    for (const bad of ['', 'PD-10AB', 'slp_abc', 'PD-10AB-CD01-X', 'PD-10AB-CD0!']) expect(slipReferenceKey(bad)).toBeNull();
  });
});

describe('back-office desk tools', () => {
  let t: TestContext;
  let m: CreatedIntegration;
  let teller: Staff;
  let teller2: Staff;
  let sup: Staff;
  let branchId: string;

  beforeAll(async () => {
    t = await createTestApp();
    m = await t.merchant('Desk Tools Merchant');
    branchId = (await t.database.db.selectFrom('branches').select('id').executeTakeFirstOrThrow()).id;
    teller = await staff(t, 'teller', { branchId });
    teller2 = await staff(t, 'teller');
    sup = await staff(t, 'supervisor');
  });
  afterAll(async () => t.close());

  const record = (who: Staff, tokenOrRef: string, amount: number) =>
    call(t, who, 'POST', `/cash-slips/${encodeURIComponent(tokenOrRef)}/deposits`, { amount_minor: amount });
  const payer = async (sessionId: string) => (await t.app.inject({ method: 'GET', url: `/api/v1/checkout/sessions/${sessionId}` })).json();

  describe('the printed reference works wherever the slip token does', () => {
    it('finds the slip by its reference in any case, with or without dashes and spaces', async () => {
      const slip = await sessionWithSlip(t, m, 4_200);
      const bare = slip.reference.replace(/-/g, '');
      for (const typed of [slip.reference, slip.reference.toLowerCase(), bare, bare.slice(2), `${bare.slice(0, 6)} ${bare.slice(6)}`]) {
        const res = await call(t, teller, 'GET', `/cash-slips/${encodeURIComponent(typed)}`);
        expect(res.statusCode, typed).toBe(200);
        expect(res.json()).toMatchObject({ slip_token: slip.slip_token, reference: slip.reference });
      }
      const typo = await call(t, teller, 'GET', '/cash-slips/PD-ZZZZ-ZZZZ');
      expect(typo.statusCode).toBe(404);
      expect(errorCode(typo)).toBe('NOT_FOUND');
    });

    it('forgives O for 0 and I or L for 1', async () => {
      const slip = await sessionWithSlip(t, m, 4_300);
      await t.database.db.updateTable('cash_slips').set({ reference: 'PD-10AB-01CD', reference_key: '10AB01CD' }).where('token', '=', slip.slip_token).execute();
      const res = await call(t, teller, 'GET', '/cash-slips/pd-loab-oicd');
      expect(res.statusCode).toBe(200);
      expect(res.json().slip_token).toBe(slip.slip_token);
    });

    it('records a deposit addressed by the typed reference', async () => {
      const slip = await sessionWithSlip(t, m, 4_400);
      const res = await record(teller, slip.reference.toLowerCase().replace(/-/g, ' '), slip.amount_minor);
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json().deposit).toMatchObject({ status: 'under_review', slip_reference: slip.reference, mode: 'test', description: 'Water bill' });
    });

    it('migration 0010 keys the slips of a populated database, old alphabet included (L, no 0 or 1)', async () => {
      const slip = await sessionWithSlip(t, m, 4_500);
      const pd = await sessionWithSlip(t, m, 4_510);
      const db = t.database.db;
      await sql`DROP INDEX cash_slips_reference_key`.execute(db);
      await sql`ALTER TABLE cash_slips DROP COLUMN reference_key`.execute(db);
      await sql`UPDATE cash_slips SET reference = 'PD-49LC-T8LM' WHERE token = ${slip.slip_token}`.execute(db);
      // A first group ending in PD: only the leading PD- is the prefix.
      await sql`UPDATE cash_slips SET reference = 'PD-QQPD-F1W7' WHERE token = ${pd.slip_token}`.execute(db);
      await m0010.up(db as never);
      for (const [typed, reference] of [['PD-49LC-T8LM', 'PD-49LC-T8LM'], ['pd49lct8lm', 'PD-49LC-T8LM'], ['49LC T8LM', 'PD-49LC-T8LM'], ['491CT81M', 'PD-49LC-T8LM'], ['PD-QQPD-F1W7', 'PD-QQPD-F1W7'], ['qqpd f1w7', 'PD-QQPD-F1W7']]) {
        const res = await call(t, teller, 'GET', `/cash-slips/${encodeURIComponent(typed!)}`);
        expect(res.statusCode, typed).toBe(200);
        expect(res.json().reference).toBe(reference);
      }
      // Every slip keyed: any that is not is named with its reference, so a failure says which.
      const keys = await db.selectFrom('cash_slips').select(['reference', 'reference_key', 'created_at']).execute();
      expect(keys.filter((k) => typeof k.reference_key !== 'string' || k.reference_key.length !== 8)).toEqual([]);
    });

    it('migration 0046 mends the keys the first 0010 wrote for references with PD after the prefix', async () => {
      const slip = await sessionWithSlip(t, m, 4_520);
      const other = await sessionWithSlip(t, m, 4_530);
      const db = t.database.db;
      // As the first 0010 left them: every PD- removed (QQF1W7), where the other slip's key is right.
      await sql`UPDATE cash_slips SET reference = 'PD-ZZPD-K7W4', reference_key = 'ZZK7W4' WHERE token = ${slip.slip_token}`.execute(db);
      const before = await db.selectFrom('cash_slips').select('reference_key').where('token', '=', other.slip_token).executeTakeFirstOrThrow();
      expect((await call(t, teller, 'GET', `/cash-slips/${encodeURIComponent('PD-ZZPD-K7W4')}`)).statusCode).toBe(404);
      await m0046.up(db as never);
      const res = await call(t, teller, 'GET', `/cash-slips/${encodeURIComponent('PD-ZZPD-K7W4')}`);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().reference).toBe('PD-ZZPD-K7W4');
      expect(await db.selectFrom('cash_slips').select('reference_key').where('token', '=', other.slip_token).executeTakeFirstOrThrow()).toEqual(before);
      expect((await call(t, teller, 'GET', `/cash-slips/${encodeURIComponent(other.reference)}`)).statusCode).toBe(200);
    });
  });

  it('a slip whose session was paid online says how it was paid', async () => {
    const slip = await sessionWithSlip(t, m, 4_600);
    const card = await payByCard(t, slip.session_id, '4242424242424242');
    expect(card.statusCode, card.body).toBe(201);
    const res = await call(t, teller, 'GET', `/cash-slips/${slip.slip_token}`);
    expect(res.json()).toMatchObject({ session_status: 'success', paid_rail: 'card', can_record: false });
  });

  describe("the payer's page (public session extensions)", () => {
    it('shows the issued slip again after a reload, and a rejected deposit with its reason', async () => {
      const slip = await sessionWithSlip(t, m, 5_000);
      expect((await payer(slip.session_id)).cash_slip).toMatchObject({ slip_token: slip.slip_token, reference: slip.reference, status: 'active' });
      const dep = (await record(teller, slip.slip_token, slip.amount_minor)).json().deposit;
      expect((await payer(slip.session_id)).cash_slip).toMatchObject({ status: 'under_review' });
      const rej = await call(t, sup, 'POST', `/deposits/${dep.id}/reject`, { reason: 'Counterfeit or damaged notes: two torn 50s' });
      expect(rej.statusCode, rej.body).toBe(200);
      const after = await payer(slip.session_id);
      expect(after.status).toBe('open');
      expect(after.cash_slip).toBeNull();
      expect(after.cash_rejection).toEqual({
        slip_reference: slip.reference,
        amount_minor: slip.amount_minor,
        currency: 'GHS',
        reason: 'Counterfeit or damaged notes: two torn 50s',
        rejected_at: t.clock.now().toISOString(),
      });
      // A new slip replaces the rejection notice.
      const again = await t.app.inject({ method: 'POST', url: '/api/v1/checkout/cash-slips', payload: { session_id: slip.session_id, amount_minor: slip.amount_minor } });
      expect(again.statusCode).toBe(201);
      const fresh = await payer(slip.session_id);
      expect(fresh.cash_rejection).toBeNull();
      expect(fresh.cash_slip.reference).toBe(again.json().reference);
    });

    it('once paid, carries the receipt: the amount charged (base + fee), when, and the reference', async () => {
      await setFeeRule(t, m.integration_id, 'cash', { percent_bps: 0, fixed_minor: 150, cap_minor: null, bearer: 'payer' });
      const slip = await sessionWithSlip(t, m, 10_000);
      expect(slip.amount_minor).toBe(10_150);
      const dep = (await record(teller, slip.slip_token, slip.amount_minor)).json().deposit;
      t.clock.advanceSeconds(60);
      expect((await call(t, sup, 'POST', `/deposits/${dep.id}/approve`)).statusCode).toBe(200);
      const paid = await payer(slip.session_id);
      expect(paid.status).toBe('success');
      expect(paid.payment).toEqual({
        rail: 'cash',
        base_minor: 10_000,
        fee_minor: 150,
        amount_charged_minor: 10_150,
        currency: 'GHS',
        paid_at: t.clock.now().toISOString(),
        provider: 'Cash deposit at a bank branch',
        reference: slip.reference,
      });
      await setFeeRule(t, m.integration_id, 'cash', { percent_bps: 0, fixed_minor: 0, cap_minor: null, bearer: 'payer' });
    });
  });

  describe('shift total and review filters', () => {
    it("counts and sums the teller's own deposits of today by review state; yesterday and other tellers are out", async () => {
      const t3 = await staff(t, 'teller');
      t.clock.advanceSeconds(-86_400);
      const old = await sessionWithSlip(t, m, 1_000);
      await record(t3, old.slip_token, old.amount_minor);
      t.clock.advanceSeconds(86_400);
      const a = await sessionWithSlip(t, m, 2_000);
      const b = await sessionWithSlip(t, m, 3_000);
      const c = await sessionWithSlip(t, m, 7_000);
      const da = (await record(t3, a.slip_token, a.amount_minor)).json().deposit;
      const db = (await record(t3, b.slip_token, b.amount_minor)).json().deposit;
      await record(t3, c.slip_token, c.amount_minor);
      const other = await sessionWithSlip(t, m, 9_000);
      await record(teller2, other.slip_token, other.amount_minor);
      await call(t, sup, 'POST', `/deposits/${da.id}/approve`);
      await call(t, sup, 'POST', `/deposits/${db.id}/reject`, { reason: 'Recorded twice' });

      const res = await call(t, t3, 'GET', '/cash-desk/shift-total');
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json();
      expect(body.teller.id).toBe(t3.id);
      expect(body.by_status).toEqual([
        { status: 'approved', currency: 'GHS', count: 1, amount_minor: 2_000 },
        { status: 'rejected', currency: 'GHS', count: 1, amount_minor: 3_000 },
        { status: 'under_review', currency: 'GHS', count: 1, amount_minor: 7_000 },
      ]);
      expect(body.totals).toEqual([{ currency: 'GHS', count: 3, amount_minor: 12_000 }]);
      expect(typeof body.time_zone).toBe('string');

      const yesterday = new Date(t.clock.now().getTime() - 86_400_000);
      const p = (n: number) => String(n).padStart(2, '0');
      const day = `${yesterday.getFullYear()}-${p(yesterday.getMonth() + 1)}-${p(yesterday.getDate())}`;
      const earlier = (await call(t, t3, 'GET', `/cash-desk/shift-total?date=${day}`)).json();
      expect(earlier.totals).toEqual([{ currency: 'GHS', count: 1, amount_minor: 1_000 }]);

      const bad = await call(t, t3, 'GET', '/cash-desk/shift-total?date=yesterday');
      expect(bad.statusCode).toBe(400);
      expect(bad.json().error.message).toMatch(/date/);
      expect((await call(t, sup, 'GET', '/cash-desk/shift-total')).statusCode).toBe(403);

      // The review queue filters by teller and by day.
      const mine = (await call(t, sup, 'GET', `/deposits?recorded_by=${t3.id}`)).json();
      expect(mine.total).toBe(4);
      const today = (await call(t, sup, 'GET', `/deposits?recorded_by=${t3.id}&from=${body.date}&to=${body.date}`)).json();
      expect(today.total).toBe(3);
      const before = (await call(t, sup, 'GET', `/deposits?recorded_by=${t3.id}&to=${day}`)).json();
      expect(before.deposits.map((d: { amount_minor: number }) => d.amount_minor)).toEqual([1_000]);
    });

    it('filters by branch and lists the tellers and branches the filters offer', async () => {
      const s = await sessionWithSlip(t, m, 8_800);
      await record(teller, s.slip_token, s.amount_minor);
      const atBranch = (await call(t, sup, 'GET', `/deposits?branch_id=${branchId}`)).json();
      expect(atBranch.total).toBeGreaterThan(0);
      expect(atBranch.deposits.every((d: { branch_id: string }) => d.branch_id === branchId)).toBe(true);
      const facets = (await call(t, sup, 'GET', '/deposits/facets')).json();
      expect(facets.tellers.map((x: { id: string }) => x.id)).toEqual(expect.arrayContaining([teller.id, teller2.id]));
      expect(facets.branches.map((x: { id: string }) => x.id)).toContain(branchId);
      const own = (await call(t, teller2, 'GET', '/deposits/facets')).json();
      expect(own.tellers.map((x: { id: string }) => x.id)).toEqual([teller2.id]);
    });
  });
});
