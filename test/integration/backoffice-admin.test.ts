import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../server/lib/hash';
import { createTestApp, type TestContext } from '../helpers/app';
import { BO, call, errorCode, PASSWORD, staff, type Staff } from './backoffice-support';

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
    const created = await call(t, admin, 'POST', '/admin/staff', { username: 'esi.teller', password: PASSWORD, role: 'teller', branch_id: branch.id });
    expect(created.statusCode).toBe(201);
    const dup = await call(t, admin, 'POST', '/admin/staff', { username: 'esi.teller', password: PASSWORD, role: 'teller' });
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
