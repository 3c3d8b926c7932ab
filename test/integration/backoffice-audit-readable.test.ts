import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditActionLabel } from '../../shared/labels';
import { createTestApp, type TestContext } from '../support/app';
import { call, errorCode, sessionWithSlip, staff, type Staff } from '../support/backoffice';

describe('a readable audit trail: targets by name, a date range, CSV export', () => {
  let t: TestContext;
  let admin: Staff;
  let dep: string;
  let reference: string;
  let keyId: string;
  const day1 = new Date('2026-03-01T09:00:00Z');
  beforeAll(async () => {
    t = await createTestApp();
    t.clock.set(day1);
    admin = await staff(t, 'admin');
    const m = await t.merchant('Volta Power');
    const teller = await staff(t, 'teller');
    const slip = await sessionWithSlip(t, m, 4_000);
    reference = slip.reference;
    dep = (await call(t, teller, 'POST', `/cash-slips/${slip.slip_token}/deposits`, { amount_minor: slip.amount_minor })).json().deposit.id;
    t.clock.set(new Date('2026-03-03T09:00:00Z'));
    admin = await staff(t, 'admin'); // the first one's sign-in timed out over the two days
    keyId = (await call(t, admin, 'POST', `/admin/integrations/${m.integration_id}/api-keys`, { name: 'Billing server' })).json().id;
  });
  afterAll(async () => t.close());

  it('names each target the way staff know it', async () => {
    const entries = (await call(t, admin, 'GET', '/audit?limit=200')).json().entries as Array<{ target_id: string; target_name: string | null }>;
    expect(entries.find((e) => e.target_id === dep)!.target_name).toMatch(new RegExp(`^Deposit of GHS.*on slip ${reference}$`));
    expect(entries.find((e) => e.target_id === keyId)!.target_name).toMatch(/^“Billing server” ak_test_.*… \(Volta Power\)$/);
  });

  it('filters by date range, and refuses a backwards or malformed one naming the field', async () => {
    const on = async (from: string, to: string) => (await call(t, admin, 'GET', `/audit?action=deposit.record&from=${from}&to=${to}`)).json().total as number;
    expect(await on('2026-03-01T00:00:00Z', '2026-03-02T00:00:00Z')).toBe(1);
    expect(await on('2026-03-02T00:00:00Z', '2026-03-04T00:00:00Z')).toBe(0);
    const backwards = await call(t, admin, 'GET', '/audit?from=2026-03-04T00:00:00Z&to=2026-03-01T00:00:00Z');
    expect(backwards.statusCode).toBe(400);
    expect(backwards.json().error.message).toMatch(/^to/);
    const bad = await call(t, admin, 'GET', '/audit?from=yesterday');
    expect(bad.statusCode).toBe(400);
    expect(errorCode(bad)).toBe('INVALID_ARGUMENT');
    expect(bad.json().error.message).toMatch(/from/);
  });

  it('exports the filtered trail as CSV with the action in words and the target by name', async () => {
    const res = await call(t, admin, 'GET', '/audit/export.csv?action=api_key.create&from=2026-03-03T00:00:00Z&to=2026-03-04T00:00:00Z');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/csv/);
    const rows = res.body.trim().split('\r\n');
    expect(rows[0]).toBe('at,staff,role,ip,action,action_code,target,target_type,target_id,before,after,time_zone');
    expect(rows).toHaveLength(2);
    expect(rows[1]).toContain('Created an API key,api_key.create,“Billing server”');
    expect(rows[1]).toMatch(/^2026-03-03T\d{2}:\d{2}:\d{2}\.\d{3}Z,.*,UTC$/);
    const teller = await staff(t, 'teller');
    expect((await call(t, teller, 'GET', '/audit/export.csv')).statusCode).toBe(403);
  });

  it('every action reads in words, including one added later', () => {
    expect(auditActionLabel('api_key.revoke')).toBe('Revoked an API key');
    expect(auditActionLabel('staff.reset_password')).toBe('Staff: reset password');
  });
});
