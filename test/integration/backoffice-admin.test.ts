import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../server/lib/hash';
import { createTestApp, type TestContext } from '../support/app';
import { BO, call, errorCode, PASSWORD, sessionWithSlip, staff, type Staff } from '../support/backoffice';

describe('back-office administration (admins only)', () => {
  let t: TestContext;
  let admin: Staff;
  let others: Staff[];
  beforeAll(async () => {
    t = await createTestApp();
    admin = await staff(t, 'admin');
    const m = await t.merchant('Admin Test Merchant');
    others = [await staff(t, 'teller'), await staff(t, 'supervisor'), await staff(t, 'finance', { merchantId: m.merchant_id })];
  });
  afterAll(async () => t.close());

  it('refuses every other role with 403 FORBIDDEN, before looking at the body', async () => {
    for (const who of others) {
      for (const [method, url] of [
        ['GET', '/admin/integrations'],
        ['POST', '/admin/integrations'],
        ['GET', '/admin/staff'],
        ['POST', '/admin/staff'],
        ['GET', '/admin/banks'],
        ['POST', '/admin/sandbox/bank-transfers'],
        ['POST', '/admin/api-keys/x/revoke'],
      ] as const) {
        const res = await call(t, who, method, url, method === 'POST' ? {} : undefined);
        expect(res.statusCode, `${who.role} ${method} ${url}`).toBe(403);
        expect(errorCode(res)).toBe('FORBIDDEN');
      }
    }
    // Same order on the cash desk: a teller rejecting without a reason is refused for the role.
    expect((await call(t, others[0]!, 'POST', '/deposits/dep_x/reject', {})).statusCode).toBe(403);
  });

  it('creates an integration and API keys shown once, lists them by prefix, revokes one', async () => {
    const res = await call(t, admin, 'POST', '/admin/integrations', { merchant_name: 'Tamale Gas', webhook_url: 'http://127.0.0.1:9/hook' });
    expect(res.statusCode).toBe(201);
    const created = res.json();
    expect(created.api_key).toMatch(/^ak_test_/);
    expect(created.webhook_secret).toMatch(/^whsec_/);
    const key2 = await call(t, admin, 'POST', `/admin/integrations/${created.integration_id}/api-keys`);
    expect(key2.statusCode).toBe(201);
    const view = (await call(t, admin, 'GET', '/admin/integrations')).json();
    const i = view.integrations.find((x: { integration_id: string }) => x.integration_id === created.integration_id);
    expect(i.api_keys.map((k: { prefix: string }) => k.prefix)).toEqual([created.api_key.slice(0, 12), key2.json().api_key.slice(0, 12)]);
    expect(JSON.stringify(view)).not.toContain(created.api_key);
    expect(JSON.stringify(view)).not.toContain(created.webhook_secret);
    // The key works, then stops working once revoked.
    const ok = await t.app.inject({ method: 'GET', url: '/api/v1/revenue-lines', headers: { authorization: `Bearer ${created.api_key}` } });
    expect(ok.statusCode).toBe(200);
    const keyId = i.api_keys[0].id as string;
    expect((await call(t, admin, 'POST', `/admin/api-keys/${keyId}/revoke`)).statusCode).toBe(200);
    const gone = await t.app.inject({ method: 'GET', url: '/api/v1/revenue-lines', headers: { authorization: `Bearer ${created.api_key}` } });
    expect(gone.statusCode).toBe(401);
    // The audit entry names the key by prefix only.
    const audit = JSON.stringify((await call(t, admin, 'GET', '/audit?limit=200')).json());
    expect(audit).toContain('integration.create');
    expect(audit).not.toContain(created.api_key);
    expect(audit).not.toContain(sha256Hex(created.api_key));
  });

  it('adds a webhook endpoint (secret shown once), sets rails and fee rules that the checkout quote uses', async () => {
    const created = (await call(t, admin, 'POST', '/admin/integrations', { merchant_name: 'Ho Telecom' })).json();
    const ep = await call(t, admin, 'POST', `/admin/integrations/${created.integration_id}/webhook-endpoints`, { url: 'https://hooks.example.com/paydesk' });
    expect(ep.statusCode).toBe(201);
    expect(ep.json().secret).toMatch(/^whsec_/);
    expect((await call(t, admin, 'POST', `/admin/integrations/${created.integration_id}/webhook-endpoints`, { url: 'not a url' })).statusCode).toBe(400);
    const rails = await call(t, admin, 'POST', `/admin/integrations/${created.integration_id}/rails`, { allowed_rails: ['cash', 'momo'] });
    expect(rails.statusCode).toBe(200);
    expect((await call(t, admin, 'POST', `/admin/integrations/${created.integration_id}/rails`, { allowed_rails: [] })).statusCode).toBe(400);
    const fee = await call(t, admin, 'POST', `/admin/integrations/${created.integration_id}/fee-rules`, { rail: 'cash', percent_bps: 0, fixed_minor: 350, cap_minor: null, bearer: 'payer' });
    expect(fee.statusCode).toBe(200);
    const s = await t.app.inject({ method: 'POST', url: '/api/v1/sessions', headers: { authorization: `Bearer ${created.api_key}` }, payload: { amount_minor: 1000, invoice_ref: 'HT-1' } });
    const quote = (await t.app.inject({ method: 'GET', url: `/api/v1/checkout/sessions/${s.json().id}/quote` })).json();
    expect(quote.allowed_rails).toEqual(['momo', 'cash']);
    expect(quote.surcharges.cash).toMatchObject({ fee_minor: 350, total_minor: 1350 });
  });

  it('manages banks, branches and staff; a disabled user is signed out', async () => {
    const banks = await call(t, admin, 'POST', '/admin/banks', { name: 'Volta Bank', code: 'vbl' });
    const bank = banks.json().banks.find((b: { code: string }) => b.code === 'VBL');
    const withBranch = await call(t, admin, 'POST', `/admin/banks/${bank.id}/branches`, { name: 'Ho Main', code: 'HO1' });
    const branch = withBranch.json().banks.find((b: { id: string }) => b.id === bank.id).branches[0];
    expect(branch).toMatchObject({ name: 'Ho Main', code: 'HO1', active: true });
    const created = await call(t, admin, 'POST', '/admin/staff', { username: 'esi.teller', full_name: 'Esi Mensah', password: PASSWORD, role: 'teller', branch_id: branch.id });
    expect(created.statusCode).toBe(201);
    const dup = await call(t, admin, 'POST', '/admin/staff', { username: 'esi.teller', full_name: 'Esi Mensah', password: PASSWORD, role: 'teller' });
    expect(dup.statusCode).toBe(400);
    const login = await t.app.inject({ method: 'POST', url: `${BO}/auth/login`, payload: { username: 'esi.teller', password: PASSWORD } });
    const token = login.json().token as string;
    expect((await call(t, token, 'GET', '/me')).json().user.branch_name).toBe('Volta Bank, Ho Main');
    await call(t, admin, 'POST', `/admin/staff/${created.json().id}/disable`);
    expect((await call(t, token, 'GET', '/me')).statusCode).toBe(401);
    expect((await call(t, admin, 'POST', `/admin/staff/${admin.id}/disable`)).statusCode).toBe(409);
    await call(t, admin, 'POST', `/admin/branches/${branch.id}/deactivate`);
    const after = (await call(t, admin, 'GET', '/admin/banks')).json().banks.find((b: { id: string }) => b.id === bank.id);
    expect(after.branches[0].active).toBe(false);
  });

  it('renames and deactivates/reactivates banks and branches: checkout options follow, every change is audited', async () => {
    // The test clock stands still: one second between changes orders the audit entries.
    const act = async (url: string, body?: unknown) => {
      const res = await call(t, admin, 'POST', url, body);
      t.clock.advanceSeconds(1);
      return res;
    };
    const options = async () => (await t.app.inject({ method: 'GET', url: '/api/v1/checkout/options' })).json() as { banks: Array<{ id: string; name: string; branches: Array<{ id: string; name: string }> }> };
    const created = (await act('/admin/banks', { name: 'Keta Savings', code: 'KSB' })).json().banks.find((b: { code: string }) => b.code === 'KSB');
    const bank = (await act(`/admin/banks/${created.id}/branches`, { name: 'Keta Market', code: 'KM1' })).json().banks.find((b: { id: string }) => b.id === created.id);
    const branchId = bank.branches[0].id as string;
    expect((await options()).banks.find((b) => b.id === bank.id)?.branches.map((b) => b.id)).toEqual([branchId]);

    const renamed = await act(`/admin/banks/${bank.id}/rename`, { name: '  Keta Rural Bank ' });
    expect(renamed.statusCode).toBe(200);
    expect(renamed.json().banks.find((b: { id: string }) => b.id === bank.id).name).toBe('Keta Rural Bank');
    expect((await act(`/admin/branches/${branchId}/rename`, { name: 'Keta Lorry Station' })).statusCode).toBe(200);
    const shown = (await options()).banks.find((b) => b.id === bank.id)!;
    expect(shown.name).toBe('Keta Rural Bank');
    expect(shown.branches[0]!.name).toBe('Keta Lorry Station');

    // A deactivated branch, then a deactivated bank, leave the checkout options; reactivation brings them back.
    expect((await act(`/admin/branches/${branchId}/deactivate`)).statusCode).toBe(200);
    expect((await options()).banks.find((b) => b.id === bank.id)?.branches).toEqual([]);
    expect((await act(`/admin/branches/${branchId}/activate`)).statusCode).toBe(200);
    const off = await act(`/admin/banks/${bank.id}/deactivate`);
    expect(off.statusCode).toBe(200);
    expect(off.json().banks.find((b: { id: string }) => b.id === bank.id).active).toBe(false);
    expect((await options()).banks.some((b) => b.id === bank.id)).toBe(false);
    // A teller cannot record a deposit at a branch of a deactivated bank.
    const m = await t.merchant('Keta Merchant');
    const teller = await staff(t, 'teller');
    const slip = await sessionWithSlip(t, m);
    const refused = await call(t, teller, 'POST', `/cash-slips/${slip.slip_token}/deposits`, { amount_minor: slip.amount_minor, branch_id: branchId });
    expect(refused.statusCode).toBe(400);
    expect((await act(`/admin/banks/${bank.id}/activate`)).statusCode).toBe(200);
    expect((await options()).banks.find((b) => b.id === bank.id)?.branches.map((b) => b.name)).toEqual(['Keta Lorry Station']);

    const entries = (await call(t, admin, 'GET', `/audit?target_id=${bank.id}&sort=at&dir=asc`)).json().entries as Array<{ action: string; before: unknown; after: unknown }>;
    expect(entries.map((e) => e.action)).toEqual(['bank.create', 'bank.rename', 'bank.deactivate', 'bank.activate']);
    expect(entries[1]).toMatchObject({ before: { name: 'Keta Savings' }, after: { name: 'Keta Rural Bank' } });
    expect(entries[2]).toMatchObject({ before: { active: true }, after: { active: false } });
    const branchEntries = (await call(t, admin, 'GET', `/audit?target_id=${branchId}&sort=at&dir=asc`)).json().entries as Array<{ action: string; before: unknown; after: unknown }>;
    expect(branchEntries.map((e) => e.action)).toEqual(['branch.create', 'branch.rename', 'branch.deactivate', 'branch.activate']);
    expect(branchEntries[1]).toMatchObject({ before: { name: 'Keta Market' }, after: { name: 'Keta Lorry Station' } });

    // Errors: empty name 400, unknown ids 404, other roles 403.
    const empty = await act(`/admin/banks/${bank.id}/rename`, { name: '   ' });
    expect(empty.statusCode).toBe(400);
    expect(errorCode(empty)).toBe('INVALID_ARGUMENT');
    for (const url of ['/admin/banks/nope/rename', '/admin/branches/nope/rename', '/admin/banks/nope/deactivate', '/admin/banks/nope/activate']) {
      const res = await act(url, { name: 'X' });
      expect(res.statusCode, url).toBe(404);
    }
    for (const who of others) {
      for (const url of [`/admin/banks/${bank.id}/rename`, `/admin/banks/${bank.id}/deactivate`, `/admin/branches/${branchId}/rename`]) {
        expect((await call(t, who, 'POST', url, { name: 'X' })).statusCode, `${who.role} ${url}`).toBe(403);
      }
    }
  });

  it('confirms a sandbox bank transfer: the session succeeds', async () => {
    const m = await t.merchant('Transfer Merchant');
    const s = (await t.app.inject({ method: 'POST', url: '/api/v1/sessions', headers: { authorization: `Bearer ${m.api_key}` }, payload: { amount_minor: 5000, invoice_ref: 'BT-1' } })).json();
    const quote = (await t.app.inject({ method: 'GET', url: `/api/v1/checkout/sessions/${s.id}/quote` })).json();
    const total = quote.surcharges.bank_transfer.total_minor as number;
    const attempt = await t.app.inject({ method: 'POST', url: `/api/v1/checkout/sessions/${s.id}/provider-attempts`, payload: { rail: 'bank_transfer', amount_minor: total } });
    const ref = attempt.json().instructions.payment_reference as string;
    const wrong = await call(t, admin, 'POST', '/admin/sandbox/bank-transfers', { payment_reference: ref, amount_minor: total - 1 });
    expect(wrong.statusCode).toBe(409);
    expect(errorCode(wrong)).toBe('PAYMENT_AMOUNT_MISMATCH');
    const ok = await call(t, admin, 'POST', '/admin/sandbox/bank-transfers', { payment_reference: ref, amount_minor: total });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toMatchObject({ session_status: 'success', finalized: true });
    expect((await call(t, admin, 'POST', '/admin/sandbox/bank-transfers', { payment_reference: 'NOPE', amount_minor: 1 })).statusCode).toBe(404);
  });
});
