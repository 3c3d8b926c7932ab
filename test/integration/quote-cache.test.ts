import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase } from '../../server/db/database';
import { CREDENTIAL_CACHE_TTL_MS } from '../../server/db/postgres';
import { createTestApp, type TestContext } from '../support/app';
import { call, staff, type Staff } from '../support/backoffice';
import { openSession, quoteTotal, setAllowedRails, setFeeRule } from '../support/checkout';
import { onPostgres } from '../support/database';

// The quote's fee rules are kept per process under the database's change stamp, like resolved
// API keys (server/modules/payments/quote-inputs.ts): a change through this process shows in the
// very next quote; another connection's (the CLI, a second process) on the next quote on SQLite
// and within CREDENTIAL_CACHE_TTL_MS on PostgreSQL.
describe('the quote after a fee-rule or rail change', () => {
  let t: TestContext;
  let admin: Staff;
  beforeAll(async () => {
    t = await createTestApp();
    admin = await staff(t, 'admin');
  });
  afterAll(async () => t.close());

  it('uses a fee rule changed through the back office on the next quote', async () => {
    const m = await t.merchant();
    const s = await openSession(t, m, { amount_minor: 10_000 });
    expect(await quoteTotal(t, s.id, 'cash')).toBe(10_200); // the default: flat 2.00
    expect(await quoteTotal(t, s.id, 'cash')).toBe(10_200);
    const fee = await call(t, admin, 'POST', `/admin/integrations/${m.integration_id}/fee-rules`, { rail: 'cash', percent_bps: 0, fixed_minor: 350, cap_minor: null, bearer: 'payer' });
    expect(fee.statusCode, fee.body).toBe(200);
    expect(await quoteTotal(t, s.id, 'cash')).toBe(10_350);
    // A rule of another integration does not change this one's.
    const other = await t.merchant();
    await setFeeRule(t, other.integration_id, 'cash', { percent_bps: 0, fixed_minor: 999, cap_minor: null, bearer: 'payer' });
    expect(await quoteTotal(t, s.id, 'cash')).toBe(10_350);
  });

  it('uses allowed rails changed in this process on the next quote', async () => {
    const m = await t.merchant();
    const s = await openSession(t, m);
    const before = (await t.app.inject({ method: 'GET', url: `/api/v1/checkout/sessions/${s.id}/quote` })).json();
    expect(before.allowed_rails).toContain('momo');
    await setAllowedRails(t, m.integration_id, ['cash']);
    const after = (await t.app.inject({ method: 'GET', url: `/api/v1/checkout/sessions/${s.id}/quote` })).json();
    expect(after.allowed_rails).toEqual(['cash']);
    expect(Object.keys(after.surcharges)).toEqual(['cash']);
  });

  it('uses a fee rule changed by another connection (as the CLI would) on the next quote (PostgreSQL: within the stated bound)', async () => {
    const m = await t.merchant();
    const s = await openSession(t, m, { amount_minor: 10_000 });
    expect(await quoteTotal(t, s.id, 'bank_transfer')).toBe(10_100); // the default: flat 1.00
    const other = connectDatabase({ databaseUrl: t.config.databaseUrl, databaseFile: t.config.databaseFile });
    try {
      const now = new Date().toISOString();
      await other.db
        .insertInto('fee_rules')
        .values({ id: `fr-${m.integration_id}`, integration_id: m.integration_id, rail: 'bank_transfer', currency: 'GHS', percent_bps: 0, fixed_minor: 450, cap_minor: null, bearer: 'payer', created_at: now, updated_at: now })
        .execute();
    } finally {
      await other.close();
    }
    const changedAt = Date.now();
    let total = await quoteTotal(t, s.id, 'bank_transfer');
    while (onPostgres && total === 10_100 && Date.now() - changedAt <= CREDENTIAL_CACHE_TTL_MS) {
      await new Promise((r) => setTimeout(r, 50));
      total = await quoteTotal(t, s.id, 'bank_transfer');
    }
    expect(total).toBe(10_450);
    if (onPostgres) expect(Date.now() - changedAt).toBeLessThanOrEqual(CREDENTIAL_CACHE_TTL_MS + 500);
  });
});
