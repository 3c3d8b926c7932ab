import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedIntegration } from '../../server/modules/integrations/integrations.service';
import { createTestApp, type TestContext } from '../support/app';
import { call, errorCode, sessionStatus, sessionWithSlip, staff, type Staff } from '../support/backoffice';

describe('back-office cash desk and supervisor review', () => {
  let t: TestContext;
  let m: CreatedIntegration;
  let teller: Staff;
  let teller2: Staff;
  let sup: Staff;
  let sup2: Staff;
  let fin: Staff;
  let admin: Staff;
  let branchId: string;

  beforeAll(async () => {
    t = await createTestApp();
    m = await t.merchant('Cash Desk Merchant');
    branchId = (await t.database.db.selectFrom('branches').select('id').executeTakeFirstOrThrow()).id;
    teller = await staff(t, 'teller', { branchId });
    teller2 = await staff(t, 'teller');
    sup = await staff(t, 'supervisor');
    sup2 = await staff(t, 'supervisor');
    fin = await staff(t, 'finance', { merchantId: m.merchant_id });
    admin = await staff(t, 'admin');
  });
  afterAll(async () => t.close());

  const events = (sessionId: string) => t.database.db.selectFrom('events').selectAll().where('session_id', '=', sessionId).execute();
  const slipRow = (token: string) => t.database.db.selectFrom('cash_slips').selectAll().where('token', '=', token).executeTakeFirstOrThrow();
  const record = (who: Staff, token: string, body: unknown) => call(t, who, 'POST', `/cash-slips/${token}/deposits`, body);

  describe('GET /cash-slips/{slip_token}', () => {
    it('shows tellers and supervisors the slip fields plus session_status', async () => {
      const slip = await sessionWithSlip(t, m, 12_345);
      for (const who of [teller, sup]) {
        const res = await call(t, who, 'GET', `/cash-slips/${slip.slip_token}`);
        expect(res.statusCode).toBe(200);
        const body = res.json();
        expect(body).toMatchObject({
          slip_token: slip.slip_token,
          reference: slip.reference,
          amount_minor: slip.amount_minor,
          currency: 'GHS',
          merchant_name: 'Cash Desk Merchant',
          session_reference: slip.session_id,
          description: 'Water bill',
          customer_name: 'Ama Mensah',
          status: 'active',
          replayed: false,
          can_record: true,
          session_status: 'open',
          deposit: null,
        });
        expect(typeof body.invoice_ref).toBe('string');
        expect(typeof body.expires_at).toBe('string');
      }
    });

    it('is 403 FORBIDDEN for finance and admin, 404 NOT_FOUND for an unknown token', async () => {
      const slip = await sessionWithSlip(t, m);
      for (const who of [fin, admin]) {
        const res = await call(t, who, 'GET', `/cash-slips/${slip.slip_token}`);
        expect(res.statusCode).toBe(403);
        expect(errorCode(res)).toBe('FORBIDDEN');
      }
      const unknown = await call(t, teller, 'GET', '/cash-slips/slp_doesnotexist');
      expect(unknown.statusCode).toBe(404);
      expect(errorCode(unknown)).toBe('NOT_FOUND');
    });
  });

  describe('POST /cash-slips/{slip_token}/deposits', () => {
    it('records the deposit: 201 under_review, the session pending, the slip under review, no new slip', async () => {
      const slip = await sessionWithSlip(t, m);
      const res = await record(teller, slip.slip_token, { amount_minor: slip.amount_minor, note: 'counted twice' });
      expect(res.statusCode).toBe(201);
      const { deposit, slip: after } = res.json();
      expect(deposit).toMatchObject({
        status: 'under_review',
        amount_minor: slip.amount_minor,
        currency: 'GHS',
        slip_reference: slip.reference,
        session_id: slip.session_id,
        session_status: 'pending',
        branch_id: branchId,
        note: 'counted twice',
        recorded_by: { id: teller.id, username: teller.username },
        reviewed_by: null,
      });
      expect(deposit.id).toMatch(/^dep_/);
      expect(after).toMatchObject({ status: 'under_review', session_status: 'pending', can_record: false });
      expect(await sessionStatus(t, m, slip.session_id)).toBe('pending');
      expect((await slipRow(slip.slip_token)).status).toBe('under_review');
      const again = await t.app.inject({ method: 'POST', url: '/api/v1/checkout/cash-slips', payload: { session_id: slip.session_id, amount_minor: slip.amount_minor } });
      expect(again.statusCode).toBe(409);
      expect(errorCode(again)).toBe('SESSION_NOT_PAYABLE');
      const twice = await record(teller2, slip.slip_token, { amount_minor: slip.amount_minor });
      expect(twice.statusCode).toBe(409);
      expect(errorCode(twice)).toBe('STATE_CONFLICT');
    });

    it('refuses an amount other than the slip amount with 409 PAYMENT_AMOUNT_MISMATCH and changes nothing', async () => {
      const slip = await sessionWithSlip(t, m);
      for (const amount of [slip.amount_minor - 1, slip.amount_minor + 100]) {
        const res = await record(teller, slip.slip_token, { amount_minor: amount });
        expect(res.statusCode).toBe(409);
        expect(errorCode(res)).toBe('PAYMENT_AMOUNT_MISMATCH');
      }
      expect((await slipRow(slip.slip_token)).status).toBe('active');
      expect(await sessionStatus(t, m, slip.session_id)).toBe('open');
    });

    it('only tellers record: supervisor, finance and admin get 403 FORBIDDEN', async () => {
      const slip = await sessionWithSlip(t, m);
      for (const who of [sup, fin, admin]) {
        const res = await record(who, slip.slip_token, { amount_minor: slip.amount_minor });
        expect(res.statusCode).toBe(403);
        expect(errorCode(res)).toBe('FORBIDDEN');
      }
      expect((await slipRow(slip.slip_token)).status).toBe('active');
    });

    it('validates: 400 naming amount_minor, branch_id; 404 for an unknown slip', async () => {
      const slip = await sessionWithSlip(t, m);
      const missing = await record(teller, slip.slip_token, {});
      expect(missing.statusCode).toBe(400);
      expect(missing.json().error.message).toMatch(/^amount_minor/);
      const frac = await record(teller, slip.slip_token, { amount_minor: 10.5 });
      expect(frac.statusCode).toBe(400);
      const branch = await record(teller, slip.slip_token, { amount_minor: slip.amount_minor, branch_id: 'no-such-branch' });
      expect(branch.statusCode).toBe(400);
      expect(branch.json().error.message).toMatch(/^branch_id/);
      const unknown = await record(teller, 'slp_unknown', { amount_minor: 100 });
      expect(unknown.statusCode).toBe(404);
      expect(errorCode(unknown)).toBe('NOT_FOUND');
    });

    it('two tellers recording the same slip at once: exactly one deposit', async () => {
      const slip = await sessionWithSlip(t, m);
      const [a, b] = await Promise.all([record(teller, slip.slip_token, { amount_minor: slip.amount_minor }), record(teller2, slip.slip_token, { amount_minor: slip.amount_minor })]);
      expect([a.statusCode, b.statusCode].sort()).toEqual([201, 409]);
      const deposits = await t.database.db.selectFrom('cash_deposits').selectAll().where('session_id', '=', slip.session_id).execute();
      expect(deposits).toHaveLength(1);
    });

    it('an expired session cannot be paid by cash any more', async () => {
      const slip = await sessionWithSlip(t, m, 5_000, 'INV-SHORT', 600);
      t.clock.advanceSeconds(601);
      const res = await record(teller, slip.slip_token, { amount_minor: slip.amount_minor });
      expect(res.statusCode).toBe(409);
      expect(await sessionStatus(t, m, slip.session_id)).toBe('expired');
      const scanned = (await call(t, teller, 'GET', `/cash-slips/${slip.slip_token}`)).json();
      expect(scanned).toMatchObject({ session_status: 'expired', can_record: false });
    });
  });

  describe('approve and reject (maker-checker)', () => {
    async function recorded(by: Staff = teller) {
      const slip = await sessionWithSlip(t, m);
      const res = await record(by, slip.slip_token, { amount_minor: slip.amount_minor });
      expect(res.statusCode).toBe(201);
      return { slip, depositId: res.json().deposit.id as string };
    }

    it('a supervisor approves: session success, one checkout.session.completed event, slip used', async () => {
      const { slip, depositId } = await recorded();
      const res = await call(t, sup, 'POST', `/deposits/${depositId}/approve`);
      expect(res.statusCode).toBe(200);
      expect(res.json().deposit).toMatchObject({ id: depositId, status: 'approved', session_status: 'success', reviewed_by: { id: sup.id } });
      expect(await sessionStatus(t, m, slip.session_id)).toBe('success');
      const ev = await events(slip.session_id);
      expect(ev.map((e) => e.type)).toEqual(['checkout.session.completed']);
      const payload = JSON.parse(ev[0]!.payload);
      expect(payload.data.session).toMatchObject({ id: slip.session_id, status: 'success', amount_minor: 10_000, currency: 'GHS' });
      expect((await slipRow(slip.slip_token)).status).toBe('used');
      const again = await call(t, sup2, 'POST', `/deposits/${depositId}/approve`);
      expect(again.statusCode).toBe(409);
      expect(errorCode(again)).toBe('STATE_CONFLICT');
      const reject = await call(t, sup2, 'POST', `/deposits/${depositId}/reject`, { reason: 'late' });
      expect(reject.statusCode).toBe(409);
      expect((await events(slip.session_id)).length).toBe(1);
    });

    it('tellers, finance and admins cannot approve or reject: 403 FORBIDDEN, nothing changes', async () => {
      const { slip, depositId } = await recorded();
      for (const who of [teller, teller2, fin, admin]) {
        const a = await call(t, who, 'POST', `/deposits/${depositId}/approve`);
        expect(a.statusCode).toBe(403);
        expect(errorCode(a)).toBe('FORBIDDEN');
        const r = await call(t, who, 'POST', `/deposits/${depositId}/reject`, { reason: 'no' });
        expect(r.statusCode).toBe(403);
      }
      expect(await sessionStatus(t, m, slip.session_id)).toBe('pending');
    });

    it('the staff member who recorded a deposit never reviews it, even after becoming a supervisor', async () => {
      const maker = await staff(t, 'teller');
      const { slip, depositId } = await recorded(maker);
      await t.database.db.updateTable('staff_users').set({ role: 'supervisor' }).where('id', '=', maker.id).execute();
      for (const action of ['approve', 'reject'] as const) {
        const res = await call(t, maker, 'POST', `/deposits/${depositId}/${action}`, action === 'reject' ? { reason: 'mine' } : undefined);
        expect(res.statusCode).toBe(403);
        expect(errorCode(res)).toBe('FORBIDDEN');
        expect(res.json().error.message).toMatch(/maker-checker/);
      }
      expect(await sessionStatus(t, m, slip.session_id)).toBe('pending');
      expect((await call(t, sup, 'POST', `/deposits/${depositId}/approve`)).statusCode).toBe(200);
    });

    it('reject needs a reason; then the slip is voided, the session open, and a new slip can be issued', async () => {
      const { slip, depositId } = await recorded();
      const noReason = await call(t, sup, 'POST', `/deposits/${depositId}/reject`, {});
      expect(noReason.statusCode).toBe(400);
      expect(noReason.json().error.message).toMatch(/^reason/);
      const blank = await call(t, sup, 'POST', `/deposits/${depositId}/reject`, { reason: '   ' });
      expect(blank.statusCode).toBe(400);
      const res = await call(t, sup, 'POST', `/deposits/${depositId}/reject`, { reason: 'Counterfeit note in bundle' });
      expect(res.statusCode).toBe(200);
      expect(res.json().deposit).toMatchObject({ status: 'rejected', review_reason: 'Counterfeit note in bundle', session_status: 'open' });
      expect((await slipRow(slip.slip_token)).status).toBe('voided');
      expect(await sessionStatus(t, m, slip.session_id)).toBe('open');
      expect(await events(slip.session_id)).toHaveLength(0);
      const fresh = await t.app.inject({ method: 'POST', url: '/api/v1/checkout/cash-slips', payload: { session_id: slip.session_id, amount_minor: slip.amount_minor } });
      expect(fresh.statusCode).toBe(201);
      expect(fresh.json().slip_token).not.toBe(slip.slip_token);
      const old = await record(teller, slip.slip_token, { amount_minor: slip.amount_minor });
      expect(old.statusCode).toBe(409);
      expect(errorCode(old)).toBe('STATE_CONFLICT');
    });

    it('unknown deposits are 404 NOT_FOUND', async () => {
      for (const action of ['approve', 'reject'] as const) {
        const res = await call(t, sup, 'POST', `/deposits/dep_nope/${action}`, action === 'reject' ? { reason: 'x' } : undefined);
        expect(res.statusCode).toBe(404);
        expect(errorCode(res)).toBe('NOT_FOUND');
      }
      expect((await call(t, sup, 'GET', '/deposits/dep_nope')).statusCode).toBe(404);
    });

    it('two supervisors approving at once: one wins, exactly one transition and one event', async () => {
      for (let round = 0; round < 5; round++) {
        const { slip, depositId } = await recorded();
        const results = await Promise.all([call(t, sup, 'POST', `/deposits/${depositId}/approve`), call(t, sup2, 'POST', `/deposits/${depositId}/approve`)]);
        expect(results.map((r) => r.statusCode).sort()).toEqual([200, 409]);
        expect(await events(slip.session_id)).toHaveLength(1);
        const history = await t.database.db.selectFrom('session_history').selectAll().where('session_id', '=', slip.session_id).where('to_status', '=', 'success').execute();
        expect(history).toHaveLength(1);
      }
    });

    it('approve racing reject: exactly one review wins', async () => {
      const { slip, depositId } = await recorded();
      const results = await Promise.all([call(t, sup, 'POST', `/deposits/${depositId}/approve`), call(t, sup2, 'POST', `/deposits/${depositId}/reject`, { reason: 'short' })]);
      expect(results.map((r) => r.statusCode).sort()).toEqual([200, 409]);
      const d = await t.database.db.selectFrom('cash_deposits').select('status').where('id', '=', depositId).executeTakeFirstOrThrow();
      const status = await sessionStatus(t, m, slip.session_id);
      expect(d.status === 'approved' ? 'success' : 'open').toBe(status);
    });
  });

  describe('GET /deposits (review queue)', () => {
    it('supervisors see the queue oldest first; tellers only their own; finance is refused', async () => {
      const s1 = await sessionWithSlip(t, m);
      const s2 = await sessionWithSlip(t, m);
      const d1 = (await record(teller, s1.slip_token, { amount_minor: s1.amount_minor })).json().deposit.id;
      t.clock.advanceSeconds(1);
      const d2 = (await record(teller2, s2.slip_token, { amount_minor: s2.amount_minor })).json().deposit.id;
      const queue = await call(t, sup, 'GET', '/deposits?status=under_review&limit=200');
      expect(queue.statusCode).toBe(200);
      const ids = (queue.json().deposits as Array<{ id: string; status: string }>).map((d) => d.id);
      expect(ids.indexOf(d1)).toBeLessThan(ids.indexOf(d2));
      expect(queue.json().deposits.every((d: { status: string }) => d.status === 'under_review')).toBe(true);
      const mine = (await call(t, teller2, 'GET', '/deposits?limit=200')).json().deposits as Array<{ recorded_by: { id: string } }>;
      expect(mine.length).toBeGreaterThan(0);
      expect(mine.every((d) => d.recorded_by.id === teller2.id)).toBe(true);
      expect((await call(t, teller2, 'GET', `/deposits/${d1}`)).statusCode).toBe(404);
      expect((await call(t, admin, 'GET', '/deposits')).statusCode).toBe(200);
      const refused = await call(t, fin, 'GET', '/deposits');
      expect(refused.statusCode).toBe(403);
      expect((await call(t, sup, 'GET', '/deposits?status=bogus')).statusCode).toBe(400);
    });

    it('sorts on the server by a named column and pages with limit/offset; an unknown sort is 400', async () => {
      const small = await sessionWithSlip(t, m, 1_234);
      const big = await sessionWithSlip(t, m, 987_654);
      const dSmall = (await record(teller, small.slip_token, { amount_minor: small.amount_minor })).json().deposit.id as string;
      const dBig = (await record(teller, big.slip_token, { amount_minor: big.amount_minor })).json().deposit.id as string;
      type Row = { id: string; amount_minor: number };
      const asc = (await call(t, sup, 'GET', '/deposits?sort=amount_minor&dir=asc&limit=200')).json() as { deposits: Row[]; total: number };
      const amounts = asc.deposits.map((d) => d.amount_minor);
      expect(amounts).toEqual([...amounts].sort((x, y) => x - y));
      expect(asc.deposits[0]!.id).toBe(dSmall);
      const desc = (await call(t, sup, 'GET', '/deposits?sort=amount_minor&dir=desc&limit=1')).json() as { deposits: Row[]; total: number };
      expect(desc.deposits.map((d) => d.id)).toEqual([dBig]);
      expect(desc.total).toBe(asc.total);
      const second = (await call(t, sup, 'GET', '/deposits?sort=amount_minor&dir=desc&limit=1&offset=1')).json() as { deposits: Row[] };
      expect(second.deposits[0]!.amount_minor).toBeLessThanOrEqual(big.amount_minor);
      expect(second.deposits[0]!.id).not.toBe(dBig);
      const byTeller = (await call(t, sup, 'GET', '/deposits?sort=recorded_by&dir=asc&limit=200')).json().deposits as Array<{ recorded_by: { username: string } }>;
      const names = byTeller.map((d) => d.recorded_by.username);
      expect(names).toEqual([...names].sort());
      for (const bad of ['sort=amount', 'sort=d.id', 'dir=sideways']) {
        const res = await call(t, sup, 'GET', `/deposits?${bad}`);
        expect(res.statusCode, bad).toBe(400);
        expect(errorCode(res)).toBe('INVALID_ARGUMENT');
      }
    });
  });
});
