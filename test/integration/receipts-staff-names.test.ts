import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../support/app';
import { call, errorCode, PASSWORD, sessionWithSlip, staff, type Staff } from '../support/backoffice';
import type { CreatedIntegration } from '../../server/modules/integrations/integrations.service';

/** Receipts for people: a short receipt number per branch and day, staff full names. */
describe('receipt numbers and staff full names', () => {
  let t: TestContext;
  let m: CreatedIntegration;
  let admin: Staff;
  let branch: { id: string; code: string; bank_code: string };
  beforeAll(async () => {
    t = await createTestApp();
    m = await t.merchant('Receipts Co');
    admin = await staff(t, 'admin');
    branch = await t.database.db
      .selectFrom('branches as br')
      .innerJoin('banks as bk', 'bk.id', 'br.bank_id')
      .select(['br.id', 'br.code', 'bk.code as bank_code'])
      .where('br.active', '=', 1)
      .orderBy('br.id')
      .executeTakeFirstOrThrow();
  });
  afterAll(async () => t.close());

  it('an admin must give a full name; it is printed as who received the cash; numbers count up per branch and day', async () => {
    const missing = await call(t, admin, 'POST', '/admin/staff', { username: 'kofi.teller', password: PASSWORD, role: 'teller', branch_id: branch.id });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error.message).toMatch(/^full_name/);
    const made = await call(t, admin, 'POST', '/admin/staff', { username: 'kofi.teller', full_name: 'Kofi Boateng', password: PASSWORD, role: 'teller', branch_id: branch.id });
    expect(made.statusCode, made.body).toBe(201);
    // The admin chose the password: the teller sets their own first.
    const login = await t.app.inject({ method: 'POST', url: '/api/backoffice/v1/auth/login', payload: { username: 'kofi.teller', password: PASSWORD } });
    const token = login.json().token as string;
    const changed = await call(t, token, 'POST', '/auth/password', { current_password: PASSWORD, new_password: 'kofi own pass 2026' });
    expect(changed.statusCode, changed.body).toBeLessThan(300);
    const teller = await t.app.inject({ method: 'POST', url: '/api/backoffice/v1/auth/login', payload: { username: 'kofi.teller', password: 'kofi own pass 2026' } });
    const tellerToken = teller.json().token as string;

    const day = t.clock.now().toISOString().slice(0, 10).replace(/-/g, '');
    const numbers: string[] = [];
    for (let i = 0; i < 2; i++) {
      const slip = await sessionWithSlip(t, m, 5_000 + i);
      const res = await call(t, tellerToken, 'POST', `/cash-slips/${slip.slip_token}/deposits`, { amount_minor: slip.amount_minor });
      expect(res.statusCode, res.body).toBe(201);
      const dep = res.json().deposit;
      expect(dep.recorded_by).toMatchObject({ username: 'kofi.teller', full_name: 'Kofi Boateng' });
      numbers.push(dep.receipt_no);
    }
    const head = `${branch.bank_code}-${branch.code}-${day}-`.toUpperCase();
    expect(numbers).toEqual([`${head}0001`, `${head}0002`]);

    const id = made.json().id as string;
    const renamed = await call(t, admin, 'POST', `/admin/staff/${id}/full-name`, { full_name: 'Kofi A. Boateng' });
    expect(renamed.statusCode, renamed.body).toBe(200);
    expect(renamed.json().staff.find((s: { id: string }) => s.id === id).full_name).toBe('Kofi A. Boateng');
    expect(errorCode(await call(t, admin, 'POST', '/admin/staff/nope/full-name', { full_name: 'X' }))).toBe('NOT_FOUND');
    const audit = await t.database.db.selectFrom('audit_log').select('action').where('target_id', '=', id).execute();
    expect(audit.map((a) => a.action)).toContain('staff.rename');
  });

  it('a teller without a branch records nothing, so no receipt is numbered at the desk', async () => {
    const teller = await staff(t, 'teller', { branchId: null });
    const slip = await sessionWithSlip(t, m, 7_000);
    const res = await call(t, teller, 'POST', `/cash-slips/${slip.slip_token}/deposits`, { amount_minor: slip.amount_minor });
    expect(res.statusCode, res.body).toBe(403);
    expect(res.json().error.code).toBe('BRANCH_REQUIRED');
    const desk = await t.database.db.selectFrom('cash_deposits').select('id').where('receipt_no', 'like', 'DESK-%').execute();
    expect(desk).toHaveLength(0);
  });
});
