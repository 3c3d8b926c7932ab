import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedIntegration } from '../../server/modules/integrations/integrations.service';
import { createTestApp, type TestContext } from '../support/app';
import { call, errorCode, staff, type Staff } from '../support/backoffice';

interface KeyView {
  id: string;
  name: string | null;
  prefix: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

describe('administration: API keys have a name and a last use; staff are bound to a bank and branch', () => {
  let t: TestContext;
  let admin: Staff;
  let m: CreatedIntegration;
  beforeAll(async () => {
    t = await createTestApp();
    admin = await staff(t, 'admin');
    m = await t.merchant('Keys Merchant');
  });
  afterAll(async () => t.close());

  const keys = async () =>
    ((await call(t, admin, 'GET', '/admin/integrations')).json().integrations as Array<{ integration_id: string; api_keys: KeyView[] }>).find((i) => i.integration_id === m.integration_id)!.api_keys;
  const useKey = (key: string) => t.app.inject({ method: 'GET', url: '/api/v1/revenue-lines', headers: { authorization: `Bearer ${key}` } });

  it('names a new key, shows when it was last used (to the minute), and a revoked key answers 401 at once', async () => {
    const created = await call(t, admin, 'POST', `/admin/integrations/${m.integration_id}/api-keys`, { name: '  Shop server  ' });
    expect(created.statusCode).toBe(201);
    const { id, api_key: secret } = created.json() as { id: string; api_key: string };
    expect(created.json().name).toBe('Shop server');
    expect((await keys()).find((k) => k.id === id)).toMatchObject({ name: 'Shop server', last_used_at: null });

    const first = t.clock.now().toISOString();
    expect((await useKey(secret)).statusCode).toBe(200);
    expect((await keys()).find((k) => k.id === id)!.last_used_at).toBe(first);
    t.clock.advanceSeconds(30);
    expect((await useKey(secret)).statusCode).toBe(200);
    expect((await keys()).find((k) => k.id === id)!.last_used_at).toBe(first);
    t.clock.advanceSeconds(40);
    expect((await useKey(secret)).statusCode).toBe(200);
    expect((await keys()).find((k) => k.id === id)!.last_used_at).toBe(t.clock.now().toISOString());

    // The key that was never used keeps "never".
    expect((await keys()).find((k) => k.id !== id)!.last_used_at).toBe(null);

    expect((await call(t, admin, 'POST', `/admin/api-keys/${id}/revoke`)).statusCode).toBe(200);
    expect((await useKey(secret)).statusCode).toBe(401);
  });

  it('a key without a name is fine; a name over 80 characters is 400 naming the field', async () => {
    const unnamed = await call(t, admin, 'POST', `/admin/integrations/${m.integration_id}/api-keys`, {});
    expect(unnamed.statusCode).toBe(201);
    expect(unnamed.json().name).toBe(null);
    const long = await call(t, admin, 'POST', `/admin/integrations/${m.integration_id}/api-keys`, { name: 'x'.repeat(81) });
    expect(long.statusCode).toBe(400);
    expect(errorCode(long)).toBe('INVALID_ARGUMENT');
    expect(long.json().error.message).toMatch(/name/);
  });

  it('"Bound to" has the bank as well as the branch', async () => {
    const branch = await t.database.db
      .selectFrom('branches as br')
      .innerJoin('banks as b', 'b.id', 'br.bank_id')
      .select(['br.id', 'br.name', 'b.name as bank_name'])
      .executeTakeFirstOrThrow();
    const teller = await staff(t, 'teller', { branchId: branch.id });
    const rows = (await call(t, admin, 'GET', '/admin/staff')).json().staff as Array<{ id: string; branch_name: string; bank_name: string }>;
    expect(rows.find((r) => r.id === teller.id)).toMatchObject({ branch_name: branch.name, bank_name: branch.bank_name });
  });
});
