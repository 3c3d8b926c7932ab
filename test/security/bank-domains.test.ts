import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedIntegration } from '../../server/modules/integrations/integrations.service';
import { createTestApp, type TestContext } from '../support/app';
import { call, errorCode, sessionWithSlip, staff, type Staff } from '../support/backoffice';

/**
 * Banks are separate trust domains: staff bound to a bank's branch act only on cash of that
 * bank. A supervisor of one bank cannot approve or reject another bank's deposit, and a teller
 * cannot record a deposit naming another bank's branch: 403, and nothing changes.
 */
describe('banks are separate trust domains at the cash desk', () => {
  let t: TestContext;
  let m: CreatedIntegration;
  let tellerA: Staff;
  let supervisorA: Staff;
  let supervisorB: Staff;
  let branchA: string;
  let branchA2: string;
  let branchB: string;

  beforeAll(async () => {
    t = await createTestApp();
    m = await t.merchant('Two Banks Ltd');
    const now = t.clock.now().toISOString();
    await t.database.db
      .insertInto('banks')
      .values([
        { id: 'bank_a_test', name: 'Bank A', code: 'BKA', active: 1, created_at: now },
        { id: 'bank_b_test', name: 'Bank B', code: 'BKB', active: 1, created_at: now },
      ])
      .execute();
    await t.database.db
      .insertInto('branches')
      .values([
        { id: 'br_a1', bank_id: 'bank_a_test', name: 'A Central', code: 'A1', active: 1, created_at: now },
        { id: 'br_a2', bank_id: 'bank_a_test', name: 'A North', code: 'A2', active: 1, created_at: now },
        { id: 'br_b1', bank_id: 'bank_b_test', name: 'B Central', code: 'B1', active: 1, created_at: now },
      ])
      .execute();
    [branchA, branchA2, branchB] = ['br_a1', 'br_a2', 'br_b1'];
    tellerA = await staff(t, 'teller', { branchId: branchA });
    supervisorA = await staff(t, 'supervisor', { branchId: branchA2 });
    supervisorB = await staff(t, 'supervisor', { branchId: branchB });
  });
  afterAll(async () => t.close());

  const record = (who: Staff, token: string, body: object) => call(t, who, 'POST', `/cash-slips/${token}/deposits`, body);

  it("a teller cannot record a deposit at another bank's branch; at another branch of their own bank they can", async () => {
    const slip = await sessionWithSlip(t, m);
    const other = await record(tellerA, slip.slip_token, { amount_minor: slip.amount_minor, branch_id: branchB });
    expect(other.statusCode, other.body).toBe(403);
    expect(errorCode(other)).toBe('FORBIDDEN');
    expect(await t.database.db.selectFrom('cash_deposits').select('id').where('session_id', '=', slip.session_id).execute()).toEqual([]);
    const own = await record(tellerA, slip.slip_token, { amount_minor: slip.amount_minor, branch_id: branchA2 });
    expect(own.statusCode, own.body).toBe(201);
  });

  it("a supervisor of another bank can neither approve nor reject the deposit; one of the teller's bank can", async () => {
    const slip = await sessionWithSlip(t, m);
    const dep = (await record(tellerA, slip.slip_token, { amount_minor: slip.amount_minor })).json() as { deposit: { id: string } };
    const approve = await call(t, supervisorB, 'POST', `/deposits/${dep.deposit.id}/approve`);
    expect(approve.statusCode, approve.body).toBe(403);
    const reject = await call(t, supervisorB, 'POST', `/deposits/${dep.deposit.id}/reject`, { reason: 'not ours' });
    expect(reject.statusCode, reject.body).toBe(403);
    expect((await t.database.db.selectFrom('cash_deposits').select('status').where('id', '=', dep.deposit.id).executeTakeFirstOrThrow()).status).toBe('under_review');
    const ok = await call(t, supervisorA, 'POST', `/deposits/${dep.deposit.id}/approve`);
    expect(ok.statusCode, ok.body).toBe(200);
  });
});
