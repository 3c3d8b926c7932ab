import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedIntegration } from '../../server/modules/integrations/integrations.service';
import { localDay } from '../../server/lib/local-day';
import { denominationsOf } from '../../shared/denominations';
import { createTestApp, type TestContext } from '../support/app';
import { call, errorCode, sessionStatus, sessionWithSlip, staff, type Staff } from '../support/backoffice';

/** Notes and coins for an amount, largest first (what a teller would hand over). */
function piecesFor(currency: string, minor: number): Record<string, number> {
  const out: Record<string, number> = {};
  let left = minor;
  for (const d of denominationsOf(currency)) {
    const n = Math.floor(left / d.value_minor);
    if (n > 0) out[d.code] = n;
    left -= n * d.value_minor;
  }
  if (left !== 0) throw new Error(`${minor} cannot be made of ${currency} pieces`);
  return out;
}

describe('the teller cash-up: float, count, expected, difference and sign-offs', () => {
  let t: TestContext;
  let m: CreatedIntegration;
  let teller: Staff;
  let teller2: Staff;
  let noBranch: Staff;
  let sup: Staff;
  let sup2: Staff;
  let today: string;

  beforeAll(async () => {
    t = await createTestApp();
    // Mid-morning: the business day is the same in UTC and in the server's zone.
    t.clock.set('2026-11-27T10:00:00.000Z');
    today = localDay(t.clock.now());
    m = await t.merchant('Cash-up Merchant');
    teller = await staff(t, 'teller');
    teller2 = await staff(t, 'teller');
    noBranch = await staff(t, 'teller', { branchId: null });
    sup = await staff(t, 'supervisor');
    sup2 = await staff(t, 'supervisor');
  });
  afterAll(async () => t.close());

  const day = (who: Staff, query = '') => call(t, who, 'GET', `/cash-desk/cash-up${query}`);
  const ghs = async (who: Staff) => (await day(who)).json().cash_ups.find((c: { currency: string }) => c.currency === 'GHS');
  const deposit = async (who: Staff, amount = 10_000) => {
    const slip = await sessionWithSlip(t, m, amount);
    const res = await call(t, who, 'POST', `/cash-slips/${slip.slip_token}/deposits`, { amount_minor: slip.amount_minor });
    expect(res.statusCode).toBe(201);
    t.clock.advanceSeconds(90);
    return res.json().deposit as { id: string; amount_minor: number; receipt_no: string };
  };
  const auditOf = (id: string) => t.database.db.selectFrom('audit_log').select(['action', 'actor_username', 'after']).where('target_type', '=', 'cash_up').where('target_id', '=', id).orderBy('at').execute();

  it('starts empty: the default currency, nothing stored, the GHS notes and coins to count', async () => {
    const res = await day(teller);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ date: today, teller: { id: teller.id, username: teller.username } });
    expect(body.cash_ups).toHaveLength(1);
    expect(body.cash_ups[0]).toMatchObject({
      id: null,
      currency: 'GHS',
      status: 'open',
      float: null,
      count: null,
      expected_minor: 0,
      difference_minor: null,
      outcome: null,
      deposits: [],
      branch_name: expect.any(String),
    });
    const codes = body.cash_ups[0].denominations.map((d: { code: string }) => d.code);
    expect(codes).toEqual(['note_20000', 'note_10000', 'note_5000', 'note_2000', 'note_1000', 'note_500', 'note_200', 'note_100', 'coin_200', 'coin_100', 'coin_50', 'coin_20', 'coin_10', 'coin_5', 'coin_1']);
    const other = (await day(teller, '?currency=usd')).json().cash_ups.find((c: { currency: string }) => c.currency === 'USD');
    expect(other.denominations).toEqual([{ code: 'total', kind: 'total', value_minor: 1 }]);
    const xof = (await day(teller, '?currency=XOF')).json().cash_ups.find((c: { currency: string }) => c.currency === 'XOF');
    expect(xof.denominations.map((d: { code: string }) => d.code)).toEqual(['note_10000', 'note_5000', 'note_2000', 'note_1000', 'note_500', 'coin_500', 'coin_250', 'coin_200', 'coin_100', 'coin_50', 'coin_25', 'coin_10', 'coin_5']);
  });

  it('expected = float + approved + waiting for review; counted − expected is the difference, short or over', async () => {
    // The float by denomination: 2 × 100 cedi + 5 × 20 cedi + 10 × 1 cedi coin = GHS 310.00.
    const float = await call(t, teller, 'POST', '/cash-desk/cash-up/float', { currency: 'GHS', denominations: { note_10000: 2, note_2000: 5, coin_100: 10, coin_50: 0 } });
    expect(float.statusCode).toBe(200);
    expect(float.json().cash_up).toMatchObject({ status: 'open', float: { amount_minor: 31_000, denominations: { note_10000: 2, note_2000: 5, coin_100: 10 } }, expected_minor: 31_000 });
    // Re-entered as a plain amount: the later one counts.
    const plain = await call(t, teller, 'POST', '/cash-desk/cash-up/float', { currency: 'GHS', amount_minor: 50_000 });
    expect(plain.json().cash_up).toMatchObject({ float: { amount_minor: 50_000, denominations: null }, expected_minor: 50_000 });

    const approved = await deposit(teller, 12_000);
    const waiting = await deposit(teller, 7_500);
    const rejected = await deposit(teller, 3_000);
    expect((await call(t, sup, 'POST', `/deposits/${approved.id}/approve`)).statusCode).toBe(200);
    expect((await call(t, sup, 'POST', `/deposits/${rejected.id}/reject`, { reason: 'Counterfeit note in bundle' })).statusCode).toBe(200);
    // Another teller's deposit is not in this drawer.
    await deposit(teller2, 9_900);

    const c = await ghs(teller);
    const expected = 50_000 + approved.amount_minor + waiting.amount_minor;
    expect(c).toMatchObject({
      approved_minor: approved.amount_minor,
      under_review_minor: waiting.amount_minor,
      rejected_minor: rejected.amount_minor,
      expected_minor: expected,
      count: null,
      difference_minor: null,
    });
    expect(c.deposits.map((d: { id: string; status: string }) => [d.id, d.status])).toEqual([
      [approved.id, 'approved'],
      [waiting.id, 'under_review'],
      [rejected.id, 'rejected'],
    ]);
    expect(c.deposits[0]).toMatchObject({ receipt_no: approved.receipt_no, amount_minor: approved.amount_minor, created_at: expect.any(String), slip_reference: expect.any(String) });

    const short = await call(t, teller, 'POST', '/cash-desk/cash-up/count', { currency: 'GHS', denominations: piecesFor('GHS', expected - 150) });
    expect(short.statusCode).toBe(200);
    expect(short.json().cash_up).toMatchObject({ count: { counted_minor: expected - 150 }, expected_minor: expected, difference_minor: -150, outcome: 'short' });
    const over = await call(t, teller, 'POST', '/cash-desk/cash-up/count', { currency: 'GHS', denominations: piecesFor('GHS', expected + 2_000) });
    expect(over.json().cash_up).toMatchObject({ difference_minor: 2_000, outcome: 'over' });
    const exact = await call(t, teller, 'POST', '/cash-desk/cash-up/count', { currency: 'GHS', denominations: piecesFor('GHS', expected) });
    expect(exact.json().cash_up).toMatchObject({ count: { counted_minor: expected, denominations: piecesFor('GHS', expected) }, difference_minor: 0, outcome: 'balanced' });
  });

  it('refuses bad counts with 400 INVALID_ARGUMENT naming the field, and changes nothing', async () => {
    const before = await ghs(teller);
    const cases: Array<[string, unknown, RegExp]> = [
      ['/count', { currency: 'GHS', denominations: { note_20000: -1 } }, /^denominations\.note_20000: must not be negative/],
      ['/count', { currency: 'GHS', denominations: { note_5000: 1.5 } }, /^denominations\.note_5000: must be a whole number/],
      ['/count', { currency: 'GHS', denominations: { note_5000: '3' } }, /^denominations\.note_5000/],
      ['/count', { currency: 'GHS', denominations: { note_30000: 1 } }, /^denominations\.note_30000: is not a GHS note or coin/],
      ['/count', { currency: 'GHS', denominations: { coin_1: 1_000_001 } }, /^denominations\.coin_1: must be at most 1000000 pieces/],
      ['/count', { currency: 'GHS' }, /^denominations: is required/],
      ['/count', { currency: 'GH', denominations: {} }, /^currency/],
      ['/count', { currency: 'GHS', date: '2026-13-45', denominations: {} }, /^date/],
      ['/count', { currency: 'GHS', date: '2099-01-01', denominations: {} }, /^date: 2099-01-01 is after today/],
      ['/float', { currency: 'GHS' }, /^amount_minor: give either amount_minor or denominations/],
      ['/float', { currency: 'GHS', amount_minor: 100, denominations: { note_100: 1 } }, /^amount_minor: give either/],
      ['/float', { currency: 'GHS', amount_minor: -5 }, /^amount_minor: must not be negative/],
      ['/float', { currency: 'XOF', denominations: { coin_1: 3 } }, /^denominations\.coin_1: is not a XOF note or coin/],
    ];
    for (const [path, body, message] of cases) {
      const res = await call(t, teller, 'POST', `/cash-desk/cash-up${path}`, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(errorCode(res)).toBe('INVALID_ARGUMENT');
      expect(res.json().error.message).toMatch(message);
    }
    const after = await ghs(teller);
    expect(after.count).toEqual(before.count);
    expect(after.float).toEqual(before.float);
  });

  it('a currency without a table is counted as one total line; XOF has no minor unit', async () => {
    const usd = await call(t, teller, 'POST', '/cash-desk/cash-up/count', { currency: 'USD', denominations: { total: 12_345 } });
    expect(usd.statusCode).toBe(200);
    expect(usd.json().cash_up).toMatchObject({ currency: 'USD', count: { counted_minor: 12_345 }, float: null, expected_minor: 0, difference_minor: 12_345, outcome: 'over' });
    const xof = await call(t, teller, 'POST', '/cash-desk/cash-up/float', { currency: 'XOF', denominations: { note_10000: 1, coin_25: 2 } });
    expect(xof.json().cash_up.float.amount_minor).toBe(10_050);
    // Signing needs a float and a count.
    const unsigned = await call(t, teller, 'POST', '/cash-desk/cash-up/sign', { currency: 'XOF' });
    expect(unsigned.statusCode).toBe(400);
    expect(unsigned.json().error.message).toMatch(/^denominations: count the drawer/);
    const noFloat = await call(t, teller, 'POST', '/cash-desk/cash-up/sign', { currency: 'USD' });
    expect(noFloat.json().error.message).toMatch(/^float: enter the opening float/);
    const codes = (await day(teller)).json().cash_ups.map((c: { currency: string }) => c.currency);
    expect(codes).toEqual(['GHS', 'USD', 'XOF']);
  });

  it('the teller signs (the count locks, the drawer closes), then another supervisor signs off with a note; all audited', async () => {
    const open = await ghs(teller);
    expect((await call(t, sup, 'POST', '/cash-desk/cash-up/sign', { currency: 'GHS' })).statusCode).toBe(403);
    // Not yet signed by the teller: nothing for a supervisor to sign off.
    const early = await call(t, sup, 'POST', `/cash-ups/${open.id}/sign-off`, {});
    expect(early.statusCode).toBe(409);
    expect(errorCode(early)).toBe('STATE_CONFLICT');

    const signed = await call(t, teller, 'POST', '/cash-desk/cash-up/sign', { currency: 'GHS' });
    expect(signed.statusCode, signed.body).toBe(200);
    const c = signed.json().cash_up;
    expect(c).toMatchObject({ id: open.id, status: 'teller_signed', expected_minor: open.expected_minor, difference_minor: 0, supervisor: null });
    expect(c.teller_signed_at).toBe(t.clock.now().toISOString());

    // Locked: no new count, no new float, and the drawer takes no more GHS deposits today.
    for (const [path, body] of [
      ['/count', { currency: 'GHS', denominations: { note_100: 1 } }],
      ['/float', { currency: 'GHS', amount_minor: 1 }],
      ['/sign', { currency: 'GHS' }],
    ] as const) {
      const res = await call(t, teller, 'POST', `/cash-desk/cash-up${path}`, body);
      expect(res.statusCode).toBe(409);
      expect(errorCode(res)).toBe('STATE_CONFLICT');
    }
    const slip = await sessionWithSlip(t, m, 4_000);
    const late = await call(t, teller, 'POST', `/cash-slips/${slip.slip_token}/deposits`, { amount_minor: slip.amount_minor });
    expect(late.statusCode).toBe(409);
    expect(late.json().error.message).toMatch(/cash-up .* is signed/);
    // A review after the teller signed does not move the frozen figures.
    const waitingId = c.deposits.find((d: { status: string }) => d.status === 'under_review').id;
    expect((await call(t, sup, 'POST', `/deposits/${waitingId}/approve`)).statusCode).toBe(200);
    const frozen = await ghs(teller);
    expect(frozen).toMatchObject({ expected_minor: open.expected_minor, under_review_minor: open.under_review_minor, difference_minor: 0 });

    // The supervisor's queue lists it; a teller may not sign off.
    const queue = await call(t, sup, 'GET', '/cash-ups');
    expect(queue.statusCode).toBe(200);
    expect(queue.json().cash_ups.map((x: { id: string }) => x.id)).toContain(open.id);
    expect((await call(t, teller, 'GET', '/cash-ups')).statusCode).toBe(403);
    expect((await call(t, teller2, 'POST', `/cash-ups/${open.id}/sign-off`, {})).statusCode).toBe(403);
    const long = await call(t, sup, 'POST', `/cash-ups/${open.id}/sign-off`, { note: 'x'.repeat(501) });
    expect(long.statusCode).toBe(400);
    expect(long.json().error.message).toMatch(/^note: must be at most 500 characters/);

    const off = await call(t, sup, 'POST', `/cash-ups/${open.id}/sign-off`, { note: 'Counted with the teller; balanced.' });
    expect(off.statusCode).toBe(200);
    expect(off.json().cash_up).toMatchObject({ status: 'supervisor_signed', supervisor: { id: sup.id, username: sup.username }, supervisor_note: 'Counted with the teller; balanced.' });
    const twice = await call(t, sup2, 'POST', `/cash-ups/${open.id}/sign-off`, {});
    expect(twice.statusCode).toBe(409);
    expect((await call(t, sup, 'GET', '/cash-ups')).json().cash_ups.map((x: { id: string }) => x.id)).not.toContain(open.id);
    expect((await call(t, sup, 'GET', '/cash-ups?status=supervisor_signed')).json().cash_ups.map((x: { id: string }) => x.id)).toContain(open.id);

    const trail = await auditOf(open.id);
    expect(trail.map((a) => a.action)).toEqual(['cash_up.float', 'cash_up.float', 'cash_up.count', 'cash_up.count', 'cash_up.count', 'cash_up.teller_sign', 'cash_up.supervisor_sign']);
    expect(trail.at(-1)!.actor_username).toBe(sup.username);
    expect(JSON.parse(trail.at(-2)!.after!)).toMatchObject({ expected_minor: open.expected_minor, counted_minor: open.expected_minor, difference_minor: 0 });
  });

  it('a supervisor cannot sign off their own count (a teller later made supervisor); another can', async () => {
    const maker = await staff(t, 'teller');
    await call(t, maker, 'POST', '/cash-desk/cash-up/float', { currency: 'GHS', amount_minor: 20_000 });
    await call(t, maker, 'POST', '/cash-desk/cash-up/count', { currency: 'GHS', denominations: { note_10000: 2, coin_10: 1 } });
    const signed = (await call(t, maker, 'POST', '/cash-desk/cash-up/sign', { currency: 'GHS' })).json().cash_up;
    expect(signed).toMatchObject({ difference_minor: 10, outcome: 'over' });
    // Tellers see their own cash-up only.
    expect((await call(t, maker, 'GET', `/cash-ups/${signed.id}`)).statusCode).toBe(200);
    expect((await call(t, teller2, 'GET', `/cash-ups/${signed.id}`)).statusCode).toBe(404);

    await t.database.db.updateTable('staff_users').set({ role: 'supervisor' }).where('id', '=', maker.id).execute();
    const own = await call(t, maker, 'POST', `/cash-ups/${signed.id}/sign-off`, { note: 'mine' });
    expect(own.statusCode).toBe(403);
    expect(errorCode(own)).toBe('FORBIDDEN');
    expect(own.json().error.message).toMatch(/cannot sign off their own count/);
    expect((await call(t, sup, 'GET', `/cash-ups/${signed.id}`)).json().status).toBe('teller_signed');
    const other = await call(t, sup2, 'POST', `/cash-ups/${signed.id}/sign-off`, {});
    expect(other.statusCode).toBe(200);
    expect(other.json().cash_up).toMatchObject({ status: 'supervisor_signed', supervisor: { id: sup2.id }, supervisor_note: null });
  });

  it('a teller without a branch cannot record a deposit: 403 BRANCH_REQUIRED, nothing changes', async () => {
    const slip = await sessionWithSlip(t, m, 6_000);
    const res = await call(t, noBranch, 'POST', `/cash-slips/${slip.slip_token}/deposits`, { amount_minor: slip.amount_minor });
    expect(res.statusCode).toBe(403);
    expect(errorCode(res)).toBe('BRANCH_REQUIRED');
    expect(res.json().error.message).toMatch(/no branch.*ask an administrator to assign you one/);
    // Naming a branch in the body does not stand in for the account's own.
    const named = await call(t, noBranch, 'POST', `/cash-slips/${slip.slip_token}/deposits`, { amount_minor: slip.amount_minor, branch_id: (await t.database.db.selectFrom('branches').select('id').executeTakeFirstOrThrow()).id });
    expect(errorCode(named)).toBe('BRANCH_REQUIRED');
    expect(await sessionStatus(t, m, slip.session_id)).toBe('open');
    expect((await t.database.db.selectFrom('cash_slips').select('status').where('token', '=', slip.slip_token).executeTakeFirstOrThrow()).status).toBe('active');
    // The teller can still look the slip up, and /me says there is no branch.
    expect((await call(t, noBranch, 'GET', `/cash-slips/${slip.slip_token}`)).statusCode).toBe(200);
    expect((await call(t, noBranch, 'GET', '/me')).json().user.branch_id).toBeNull();
    // Once placed at a branch, the same teller records it.
    const branch = await t.database.db.selectFrom('branches').select('id').orderBy('code').executeTakeFirstOrThrow();
    await t.database.db.updateTable('staff_users').set({ branch_id: branch.id }).where('id', '=', noBranch.id).execute();
    const placed = await call(t, noBranch, 'POST', `/cash-slips/${slip.slip_token}/deposits`, { amount_minor: slip.amount_minor });
    expect(placed.statusCode).toBe(201);
  });
});
